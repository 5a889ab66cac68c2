// A Plotly chart drawn by plotly.js's cartesian bundle (hograd_ui/parts/chart.py says why).
//
// The bundle is a plain script served by Streamlit's static serving (static/ next to app.py,
// at app/static/ under the app's URL); it is loaded once per page, when the first chart that
// needs it arrives, and shared by every chart after it. Each chart is one <div class="hograd-chart">
// redrawn in place with Plotly.react when its figure changes, so zooming and the legend's
// hidden traces stay as the reader left them where the figure sets layout.uirevision.

// data.bundle names the bundle a chart needs: "cartesian" for every 2-D chart, "gl3d" for the
// HVP page's 3-D surface (scatter, surface and the other 3-D traces; 1.75 MB, loaded only when
// that chart is drawn). Both set window.Plotly when they run, so they load one after the
// other and each promise keeps the Plotly its own script made.
const BUNDLES = {
  cartesian: "app/static/plotly-cartesian-4.1.1.min.js",
  gl3d: "app/static/plotly-gl3d-4.1.1.min.js",
};

function plotly(kind) {
  const loaded = (window.hogradPlotly = window.hogradPlotly || {});
  if (!loaded[kind]) {
    const before = window.hogradPlotlyLast || Promise.resolve();
    loaded[kind] = before.catch(() => null).then(() => new Promise((resolve, reject) => {
      const script = document.createElement("script");
      // relative to the page: the app may be served under a path (Community Cloud, a proxy)
      script.src = new URL(BUNDLES[kind], document.baseURI).href;
      script.onload = () => resolve(window.Plotly);
      script.onerror = () => {
        loaded[kind] = null; // the next chart tries again
        reject(new Error("could not load " + script.src));
      };
      document.head.appendChild(script);
    }));
    window.hogradPlotlyLast = loaded[kind];
  }
  return loaded[kind];
}

const EXPAND = {
  width: 600, height: 470,
  path: "M32 32C14 32 0 46 0 64v96c0 18 14 32 32 32s32-14 32-32V96h64c18 0 32-14 32-32s-14-32-32-32zM64 352c0-18-14-32-32-32S0 334 0 352v96c0 18 14 32 32 32h96c18 0 32-14 32-32s-14-32-32-32H64zM320 32c-18 0-32 14-32 32s14 32 32 32h64v64c0 18 14 32 32 32s32-14 32-32V64c0-18-14-32-32-32zM448 352c0-18-14-32-32-32s-32 14-32 32v64h-64c-18 0-32 14-32 32s14 32 32 32h96c18 0 32-14 32-32z",
};

function config(box, labels) {
  return {
    displaylogo: false,
    showSendToCloud: false,
    modeBarButtonsToRemove: ["lasso2d", "select2d", "sendDataToCloud"],
    modeBarButtonsToAdd: [{
      name: "fullscreen",
      title: labels.fullscreen,
      icon: EXPAND,
      click: () => (document.fullscreenElement === box
        ? document.exitFullscreen() : box.requestFullscreen()),
    }],
  };
}

// Presentation mode (data.fit): the chart ends on the first 1920x1080 screen. Its height is
// the figure's, or less when the room between the chart's top (in the page, not the window:
// the page may be scrolled) and the screen's bottom edge is smaller, but not under FLOOR px,
// where the axes would have no room left: a chart that far down keeps its height (it is read
// on the page's next screen, scrolled to).
// Fonts keep their projector sizes: only the plot area gets shorter. The chart's top moves as
// the elements above it are drawn, so the height is fitted again whenever the page's main
// block changes size (its own new height does not move its top: no loop).
const FLOOR = 320, GAP = 16;

function fitted(box) {
  const height = Number(box.dataset.height);
  if (!box.hogradFit) return height;
  const top = box.getBoundingClientRect().top + window.scrollY;
  const room = Math.floor(window.innerHeight - top - GAP);
  return room < FLOOR ? height : Math.min(height, room);
}

function refit(box) {
  if (!box.isConnected || document.fullscreenElement === box) return;
  const height = fitted(box) + "px";
  if (box.style.height === height) return;
  box.style.height = height; // the ResizeObserver resizes the plot
  if (box.hogradRedraw) box.hogradRedraw(); // and the log axes' ticks follow the height
}

// A legend under the plot needs nothing here: presentation mode places it at the chart's
// bottom edge, the bottom margin stacked by plotly.js (hograd_ui/plotting.py's
// _legend_at_the_bottom), so it follows any height.
// A log axis's labels are fixed by the figure for its own height (hograd_ui/plot_kit.py's
// log_axis: every n-th power of ten, or 1, 2 and 5 over a decade or so); on a chart fitted
// shorter they would run into each other. There every n-th power becomes every
// ceil(n * shrink)-th, and 1, 2, 5 become the powers of ten alone.
function sparser(layout, shrink) {
  if (shrink <= 1.02) return layout;
  const out = { ...layout };
  for (const name of Object.keys(out)) {
    const axis = out[name];
    if (!/^yaxis\d*$/.test(name) || !axis || axis.type !== "log") continue;
    if (typeof axis.dtick === "number") {
      out[name] = { ...axis, dtick: Math.ceil(axis.dtick * shrink) };
    } else if (axis.dtick === "D2") {
      out[name] = { ...axis, dtick: 1 };
    }
  }
  return out;
}

// Drawn and fitted, a log axis whose labels (every n-th power of ten) would still stand
// closer than LABEL_EMS of their font size gets every m-th power, m = floor(decades /
// (labels that fit - 1)), so that a label near each end is kept: a short panel of a stacked figure (Newton's convergence) has room for
// two or three. Read from the drawn axis: its length in pixels and its range in decades.
const LABEL_EMS = 2.4;

function roomier(Plotly, box) {
  const full = box._fullLayout;
  if (!box.hogradFit || !full) return null;
  const updates = {};
  for (const name of Object.keys(full)) {
    const axis = full[name];
    if (!/^yaxis\d*$/.test(name) || !axis || axis.type !== "log") continue;
    if (typeof axis.dtick !== "number" || !Array.isArray(axis.range) || !axis._length) continue;
    const decades = Math.abs(axis.range[1] - axis.range[0]);
    const labels = Math.max(2, Math.floor(axis._length / (LABEL_EMS * axis.tickfont.size)));
    const every = Math.max(1, Math.floor(decades / (labels - 1))); // the ends both labelled
    if (every > axis.dtick) updates[name + ".dtick"] = every;
  }
  return Object.keys(updates).length ? Plotly.relayout(box, updates) : null;
}

// On a narrow screen (a phone's column, under NARROW px) a legend beside the plot, plotly's
// default place, takes about half the plot's width, and a legend above it (plot_kit's "top")
// wraps into rows under the chart's tool bar, which covers the first of them. There either
// goes under the plot, in rows, at the chart's bottom edge as presentation mode puts one
// (hograd_ui/plotting.py's _legend_at_the_bottom: plotly.js reserves the legend's own height
// in the bottom margin), and the chart grows by about the rows it takes, so the plot keeps
// its height.
const NARROW = 520, ROW = 26;

function beside(layout) {
  const legend = layout.legend || {};
  return layout.showlegend !== false && legend.orientation !== "h" &&
    !(typeof legend.x === "number" && legend.x < 1) &&
    !(typeof legend.y === "number" && legend.y < 0);
}

function above(layout) {
  const legend = layout.legend || {};
  return layout.showlegend !== false && legend.yref !== "container" &&
    typeof legend.y === "number" && legend.y >= 1;
}

// A colour bar beside the plot (a contour's, a heat map's) takes a third of a phone's column
// with its ticks and title: there it goes under the plot too, across it, below the legend.
const BAR_ROOM = 80;

// The figure with every vertical colour bar shown (a trace's, a marker's, a coloraxis's) laid
// across the chart under the plot; moved: how many were.
function barsUnder(figure) {
  let moved = 0;
  const under = (old) => {
    if (!old || old.orientation === "h") return old;
    moved += 1;
    const title = old.title && typeof old.title === "object" ? old.title : {};
    return {
      ...old, orientation: "h", thickness: 12, len: 1, lenmode: "fraction",
      x: 0.5, xanchor: "center", xref: "paper", y: 0, yanchor: "bottom", yref: "container",
      xpad: 0, ypad: 8, title: { ...title, side: "top" },
    };
  };
  const data = (figure.data || []).map((trace) => {
    let out = trace;
    if (trace.colorbar && trace.showscale !== false && !trace.coloraxis) {
      out = { ...out, colorbar: under(trace.colorbar) };
    }
    if (trace.marker && trace.marker.colorbar && trace.marker.showscale) {
      out = { ...out, marker: { ...trace.marker, colorbar: under(trace.marker.colorbar) } };
    }
    return out;
  });
  const layout = { ...figure.layout };
  for (const name of Object.keys(layout)) {
    if (/^coloraxis\d*$/.test(name) && layout[name] && layout[name].showscale !== false) {
      layout[name] = { ...layout[name], colorbar: under(layout[name].colorbar || {}) };
    }
  }
  return { figure: { ...figure, data, layout }, moved };
}

function legendRows(figure, width) {
  const names = (figure.data || [])
    .filter((t) => t.showlegend !== false && t.name)
    .map((t) => String(t.name).length);
  let rows = 1, used = 0;
  for (const chars of names) { // about 8 px a character at 15 px, 50 px of symbol and gap
    const w = 50 + 8 * chars;
    if (used && used + w > width) { rows += 1; used = 0; }
    used += w;
  }
  return rows + 1; // and its title's row
}

function underneath(layout, figure, width, bars) {
  // bars: px under the legend kept for the colour bars (barsUnder), 0 if none
  const out = { ...layout, margin: { ...(layout.margin || {}) } };
  const legend = layout.legend || {};
  const title = legend.title && typeof legend.title === "object" ? legend.title : null;
  const rows = ROW * legendRows(figure, width);
  const height = (layout.height || 450) + rows + bars;
  out.legend = {
    ...legend, orientation: "h", x: 0, xanchor: "left", yref: "container", y: bars / height,
    yanchor: "bottom", ...(title ? { title: { ...title, side: "top" } } : {}),
  };
  if (!(beside(layout) || above(layout))) { // only the colour bars move: the legend stays
    out.legend = layout.legend;
    if (layout.legend === undefined) delete out.legend;
  }
  for (const name of Object.keys(out)) {
    if (/^xaxis\d*$/.test(name)) out[name] = { ...out[name], automargin: true };
  }
  if (!Object.keys(out).some((name) => /^xaxis\d*$/.test(name))) {
    out.xaxis = { automargin: true };
  }
  out.margin.r = Math.min(out.margin.r ?? 80, 20);
  const moved = beside(layout) || above(layout);
  return { layout: out, extra: (moved ? rows : 0) + bars };
}

export default function ({ parentElement, data, setTriggerValue }) {
  let box = parentElement.querySelector(":scope > .hograd-chart");
  if (!box) {
    box = document.createElement("div");
    box.className = "hograd-chart";
    box.style.width = "100%";
    parentElement.appendChild(box);
  }
  data = JSON.parse(new TextDecoder().decode(data)); // one JSON text: labels, pick, figure
  // The chart in words (hograd_ui/chart_text.py): a figure named by its title and described
  // by a paragraph that a screen reader reads and the screen does not show.
  let said = parentElement.querySelector(":scope > .hograd-said");
  if (!said) {
    said = document.createElement("p");
    said.className = "hograd-said";
    said.id = "hograd-said-" + Math.random().toString(36).slice(2);
    said.style.cssText = "position:absolute;width:1px;height:1px;margin:-1px;padding:0;" +
      "overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0";
    parentElement.insertBefore(said, box);
  }
  said.textContent = data.said.description;
  box.setAttribute("role", "figure");
  box.setAttribute("aria-label", data.said.name);
  box.setAttribute("aria-describedby", said.id);
  const given = data.figure;
  const small = !data.fit && box.clientWidth > 0 && box.clientWidth < NARROW;
  const laid = small ? barsUnder(given) : { figure: given, moved: 0 };
  const bars = laid.moved > 0;
  const figure = laid.figure;
  const narrow = small && (bars || beside(given.layout) || above(given.layout));
  const moved = narrow ? underneath(given.layout, given, box.clientWidth, bars ? BAR_ROOM : 0) : null;
  const height = (figure.layout.height || 450) + (moved ? moved.extra : 0);
  box.dataset.height = height;
  box.hogradFit = !!data.fit;
  if (document.fullscreenElement !== box) box.style.height = fitted(box) + "px";
  const draw = (Plotly) => {
    const shown = document.fullscreenElement === box ? height : fitted(box);
    const layout = sparser({ ...(moved ? moved.layout : figure.layout) }, height / shown);
    delete layout.width; // the column's width, followed by the observer below
    delete layout.height; // the box's: the figure's own (above), or the screen's in full screen
    return Plotly.react(box, {
      data: figure.data, layout, frames: figure.frames || [], config: config(box, data.labels),
    }).then(() => roomier(Plotly, box));
  };
  plotly(data.bundle || "cartesian").then((Plotly) => {
    box.hogradPlotly = Plotly;
    box.hogradRedraw = () => draw(Plotly).catch((error) => console.error(error));
    return draw(Plotly).then(() => {
      if (!box.hogradWatched) {
        box.hogradWatched = true;
        new ResizeObserver(() => box.isConnected && Plotly.Plots.resize(box)).observe(box);
        const main = box.closest("[data-testid='stMainBlockContainer']");
        if (main) { // its size, and elements above the chart that come and go
          new ResizeObserver(() => refit(box)).observe(main);
          new MutationObserver(() => refit(box)).observe(main, { childList: true, subtree: true });
        }
        window.addEventListener("resize", () => refit(box));
        box.addEventListener("fullscreenchange", () => {
          const full = document.fullscreenElement === box;
          box.style.background = full ? "#fff" : "";
          box.style.height = full ? "100vh" : fitted(box) + "px";
          Plotly.Plots.resize(box); // the whole screen, then the column and the figure's height
        });
      }
      box.hogradPick = data.pick ? setTriggerValue : null;
      if (data.pick && !box.hogradClicks) {
        box.hogradClicks = true;
        box.on("plotly_click", (event) => {
          const point = event.points && event.points[0];
          if (point && box.hogradPick) box.hogradPick("pick", { x: point.x, y: point.y });
        });
      }
    });
  }, (error) => { // the bundle did not load: say so where the chart would be
    box.textContent = data.labels.failed;
    console.error(error);
  }).catch((error) => console.error(error)); // a drawing error: the console's, as Plotly's own
  return () => {
    // called before each redraw as well as on removal: only a removed chart is let go
    setTimeout(() => {
      if (!box.isConnected && box.hogradPlotly) box.hogradPlotly.purge(box);
    }, 0);
  };
}
