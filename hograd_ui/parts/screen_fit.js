// Presentation mode: Graphviz drawings and tables end on the first 1920x1080 screen
// (hograd_ui/parts/screen_fit.py says why and when).
//
// A drawing (drawn by the page's CSS at 1.8 times its size, 23 px node text) or a table (26 px
// text) taller than the room between its top and the screen's bottom edge is drawn smaller, by
// CSS zoom, until it fits. A table goes down to TABLE_TEXT px (its smallest cell's) and no further: the
// rest of a longer one scrolls inside its box, under its header. One whose top is within
// FLOOR px of the bottom edge keeps its size: it is read on the page's next screen, scrolled
// to. Each fit starts again from the page's size, in one frame (nothing is painted in
// between), when the main block's elements change (a drawing is replaced, an element above
// comes or goes) or the window is resized, and only for an element whose content, top or
// window differs from its last fit; the styles set here are attribute changes, which the
// observer does not watch: no loop.

const GAP = 16, FLOOR = 200, ROUNDS = 8, TABLE_TEXT = 20;
const SVG = "[data-testid='stGraphVizChart'] svg";
const TABLE = "[data-testid='stMain'] [data-testid='stTable']";

const done = new WeakMap(); // element -> what its last fit was for

function room(element) {
  return window.innerHeight - element.getBoundingClientRect().top - GAP;
}

function unchanged(element, content) {
  const top = Math.round(element.parentElement.getBoundingClientRect().top);
  const key = [content, top, window.innerHeight].join();
  if (done.get(element) === key) return true;
  done.set(element, key);
  return false;
}

function fitDrawing(svg) {
  if (unchanged(svg, svg.getAttribute("viewBox"))) return;
  svg.style.zoom = "";
  for (let round = 0; round < ROUNDS; round++) {
    const height = svg.getBoundingClientRect().height, space = room(svg);
    if (!height || height <= space || space < FLOOR) return;
    const zoom = parseFloat(getComputedStyle(svg).zoom) || 1;
    // a drawing as wide as the column is scaled by the column, not the zoom: the next round
    // measures again and goes on shrinking until the height follows
    svg.style.zoom = String(zoom * Math.max(0.5, space / height));
  }
}

function fitTable(table) {
  if (unchanged(table, table.textContent.length)) return;
  // Streamlit's own scroll box around the <table>: its header cells stick to its top
  const scroller = table.querySelector("table")?.parentElement || table;
  table.style.zoom = "";
  scroller.style.maxHeight = "";
  const height = table.getBoundingClientRect().height, space = room(table);
  if (!height || height <= space || space < FLOOR) return;
  const cells = [...table.querySelectorAll("td, th")].map((c) => parseFloat(getComputedStyle(c).fontSize));
  const zoom = Math.max(Math.min(1, TABLE_TEXT / Math.min(...cells)), space / height);
  table.style.zoom = String(zoom);
  if (table.getBoundingClientRect().height > space + 0.5) {
    const above = scroller.getBoundingClientRect().top - table.getBoundingClientRect().top;
    scroller.style.maxHeight = Math.floor((space - above) / zoom) + "px"; // in its own pixels
    scroller.style.overflowY = "auto";
  }
}

function fitAll() {
  document.querySelectorAll(SVG).forEach(fitDrawing);
  document.querySelectorAll(TABLE).forEach(fitTable);
}

export default function () {
  if (window.hogradScreenFit) {
    window.hogradScreenFit();
    return;
  }
  let pending = false;
  const later = () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; fitAll(); });
  };
  window.hogradScreenFit = later;
  const watch = () => {
    const main = document.querySelector("[data-testid='stMainBlockContainer']");
    if (!main) return setTimeout(watch, 200);
    new MutationObserver(later).observe(main, { childList: true, subtree: true });
    window.addEventListener("resize", later);
    later();
  };
  watch();
}
