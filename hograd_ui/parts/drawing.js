// A Graphviz drawing named and described for a screen reader (hograd_ui/parts/a11y.py's
// graphviz): the drawing in the same container as this element becomes an image with the
// name, described by a paragraph that is read and not drawn. Streamlit draws the SVG after
// the run and may draw it again: a watcher over the container names it each time (it sets
// attributes only, which it does not watch: no loop).
//
// With data.scroll (a name for its box), a drawing whose node text would be drawn under
// data.floor px (a large graph shrunk to the column's width, or to the projector's room) is
// drawn at that text size instead and scrolls inside its box, which is never wider than the
// column and at most data.height of the window's height tall, or, projected, ends on the
// screen; one taller than its box is drawn smaller to fit it, down to the same floor. A
// box that scrolls is a named region that Tab reaches and the arrow keys scroll; the image is
// then the SVG inside it. hograd_ui/parts/screen_fit.js leaves such a drawing alone.
//
// A drawing may be wider than what it draws: a DOT strut (an invisible cell under the graph)
// gives a small graph its least width. Where the drawing at its size would scroll sideways
// and what it draws (its nodes and edges) fits the box, the strut's empty sides are cut off
// the SVG's viewBox, so a graph that fits does not scroll.

const GAP = 16, ROOM = 320, ROUNDS = 4, PAD = 4; // PAD: user units kept beside the content

// The smallest node text as drawn, in CSS px: font size times the drawing's scale.
function smallest(svg) {
  const sizes = [...svg.querySelectorAll("g.node text")]
    .filter((t) => t.getBBox().height > 0)
    .map((t) => parseFloat(getComputedStyle(t).fontSize) * t.getBoundingClientRect().height / t.getBBox().height);
  return sizes.length ? Math.min(...sizes) : Infinity;
}

// The x range, in the SVG's user units, of what it draws (its nodes and edges).
function drawnX(svg) {
  const r = svg.getBoundingClientRect(), box = svg.viewBox.baseVal;
  const parts = [...svg.querySelectorAll("g.node, g.edge")].map((g) => g.getBoundingClientRect());
  if (!parts.length || !r.width || !box || !box.width) return null;
  const unit = box.width / r.width;
  const left = Math.min(...parts.map((p) => p.left)), right = Math.max(...parts.map((p) => p.right));
  return [box.x + (left - r.left) * unit - PAD, box.x + (right - r.left) * unit + PAD];
}

// Cut the empty sides off a drawing that scrolls sideways when what it draws fits its box;
// its scale (its text size) stays. The uncut viewBox and width are kept to undo it.
function crop(chart, svg) {
  if (chart.scrollWidth <= chart.clientWidth + 1) return;
  const x = drawnX(svg), box = svg.viewBox.baseVal, r = svg.getBoundingClientRect();
  if (!x) return;
  const [x0, x1] = [Math.max(box.x, x[0]), Math.min(box.x + box.width, x[1])];
  const px = ((x1 - x0) * r.width) / box.width;
  if (px > chart.clientWidth || x1 - x0 >= box.width - 0.5) return;
  const from = { viewBox: svg.getAttribute("viewBox"), width: svg.getAttribute("width") };
  const to = [x0, box.y, x1 - x0, box.height].map((v) => v.toFixed(2)).join(" ");
  const unit = (from.width || "").replace(/^[\d.]+/, "");
  const width = parseFloat(from.width);
  if (width > 0) svg.setAttribute("width", ((width * (x1 - x0)) / box.width).toFixed(2) + unit);
  svg.setAttribute("viewBox", to);
  const css = px / (svg.currentCSSZoom || 1) + "px";
  svg.style.minWidth = svg.style.maxWidth = css;
  svg.hogradCrop = { from, to };
}

function uncrop(svg) {
  const cut = svg.hogradCrop;
  svg.hogradCrop = null;
  if (!cut || svg.getAttribute("viewBox") !== cut.to) return; // redrawn since: nothing to undo
  svg.setAttribute("viewBox", cut.from.viewBox);
  if (cut.from.width !== null) svg.setAttribute("width", cut.from.width);
}

function fit(chart, svg, data) {
  const key = [svg.getAttribute("viewBox"), window.innerWidth, window.innerHeight].join();
  if (svg.hogradFit === key) return;
  uncrop(svg);
  chart.dataset.hogradScroll = "1";
  svg.style.zoom = "";  // screen_fit.js's, from before this box was marked
  svg.style.minWidth = svg.style.maxWidth = "";
  chart.style.maxWidth = "100%";
  chart.style.overflow = "auto";
  const room = data.projected
    ? Math.max(ROOM, window.innerHeight - chart.getBoundingClientRect().top - GAP)
    : window.innerHeight * data.height;
  chart.style.maxHeight = room + "px";
  const laid = smallest(svg) !== Infinity; // not laid out yet: fit next time
  for (let round = 0; round < ROUNDS; round++) {
    const text = smallest(svg), box = svg.getBoundingClientRect();
    // smaller to fit the box's height, but never under the floor (larger, if the column's
    // width shrank it under)
    const scale = Math.max(Math.min(1, room / box.height), data.floor / text);
    if (!(Math.abs(scale - 1) > 0.002)) break;
    // a length set on the SVG is scaled by its CSS zoom; min-width beats max-width: 100 %
    const width = (box.width * scale) / (svg.currentCSSZoom || 1) + "px";
    if (scale < 1) svg.style.maxWidth = width;
    else svg.style.minWidth = width;
  }
  if (laid) crop(chart, svg);
  // what the next call compares with: the viewBox as it is now, cut or not
  svg.hogradFit = laid ? [svg.getAttribute("viewBox"), window.innerWidth, window.innerHeight].join() : null;
  // the box opens on the drawing's top node (a graph drawn top to bottom starts there)
  const nodes = [...svg.querySelectorAll("g.node")].map((n) => n.getBoundingClientRect());
  if (nodes.length && chart.scrollWidth > chart.clientWidth + 1) {
    const top = nodes.reduce((a, b) => (b.top < a.top ? b : a));
    const left = chart.getBoundingClientRect().left;
    chart.scrollLeft += top.left + top.width / 2 - left - chart.clientWidth / 2;
  }
}

function apply(block) {
  const chart = block.querySelector("[data-testid='stGraphVizChart']");
  const data = block.hogradSaid;
  if (!chart || !data) return;
  const svg = chart.querySelector("svg");
  const image = data.scroll ? svg : chart;
  if (!image) return;
  if (data.scroll) fit(chart, svg, data);
  image.setAttribute("role", "img");
  image.setAttribute("aria-label", data.name);
  image.setAttribute("aria-describedby", data.id);
  if (!data.scroll) return;
  const scrolls = chart.scrollWidth > chart.clientWidth + 1 || chart.scrollHeight > chart.clientHeight + 1;
  if (scrolls) {
    chart.setAttribute("role", "region");
    chart.setAttribute("aria-label", data.scroll);
    chart.tabIndex = 0;
  } else {
    chart.removeAttribute("role");
    chart.removeAttribute("aria-label");
    chart.removeAttribute("tabindex");
  }
}

export default function ({ parentElement, data }) {
  let said = parentElement.querySelector(":scope > .hograd-said");
  if (!said) {
    said = document.createElement("p");
    said.className = "hograd-said";
    said.id = "hograd-said-" + Math.random().toString(36).slice(2);
    said.style.cssText = "position:absolute;width:1px;height:1px;margin:-1px;padding:0;" +
      "overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0";
    parentElement.appendChild(said);
  }
  said.textContent = data.description;
  const block = parentElement.closest("[data-testid='stVerticalBlock']");
  if (!block) return;
  block.hogradSaid = { ...data, id: said.id };
  if (!block.hogradSaidWatch) {
    block.hogradSaidWatch = new MutationObserver(() => apply(block));
    block.hogradSaidWatch.observe(block, { childList: true, subtree: true });
    window.addEventListener("resize", () => apply(block));
  }
  const svg = block.querySelector("[data-testid='stGraphVizChart'] svg");
  if (svg) svg.hogradFit = null;  // new data (another floor or room): fit again
  apply(block);
}
