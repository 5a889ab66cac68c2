// Presentation mode: Graphviz drawings and tables end on the first 1920x1080 screen
// (hograd_ui/parts/screen_fit.py says why and when).
//
// A drawing (drawn by the page's CSS at 1.8 times its size, 23 px node text), a table (26 px
// text) or a code block (22 px) taller than the room between its top and the screen's bottom
// edge is drawn smaller, by CSS zoom, until it fits. A table or code goes down to TEXT px for
// its smallest text and no further: the rest of a longer one scrolls inside its box (a
// table's under its header). One whose top is within
// FLOOR px of the bottom edge keeps its size: it is read on the page's next screen, scrolled
// to. Each fit starts again from the page's size, in one frame (nothing is painted in
// between), when the main block's elements change (a drawing is replaced, an element above
// comes or goes) or the window is resized, and only for an element whose content, top or
// window differs from its last fit; the styles set here are attribute changes, which the
// observer does not watch: no loop.

const GAP = 16, FLOOR = 200, ROUNDS = 8, TEXT = 20;
const SVG = "[data-testid='stGraphVizChart'] svg";
const TABLE = "[data-testid='stMain'] [data-testid='stTable']";
const CODE = "[data-testid='stMain'] [data-testid='stCode']";

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
  if (svg.closest("[data-hograd-scroll]")) return; // it scrolls in its box (drawing.js)
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

// A table or a code block: zoomed down to TEXT px for its smallest text, then the rest
// scrolls inside ``scroller`` (Streamlit's own box around the <table>, whose header cells
// stick to its top; the code's <pre>).
function fitText(element, scroller, texts) {
  if (unchanged(element, element.textContent.length)) return;
  element.style.zoom = "";
  scroller.style.maxHeight = "";
  const height = element.getBoundingClientRect().height, space = room(element);
  if (!height || height <= space || space < FLOOR) return;
  const sizes = [...element.querySelectorAll(texts)].map((c) => parseFloat(getComputedStyle(c).fontSize));
  const zoom = Math.max(Math.min(1, TEXT / Math.min(...sizes)), space / height);
  element.style.zoom = String(zoom);
  if (element.getBoundingClientRect().height > space + 0.5) {
    const above = scroller.getBoundingClientRect().top - element.getBoundingClientRect().top;
    const below = element.getBoundingClientRect().bottom - scroller.getBoundingClientRect().bottom;
    scroller.style.maxHeight = Math.floor((space - above - below) / zoom) + "px"; // its own px
    scroller.style.overflowY = "auto";
  }
}

function fitAll() {
  document.querySelectorAll(SVG).forEach(fitDrawing);
  document.querySelectorAll(TABLE).forEach((t) => fitText(t, t.querySelector("table")?.parentElement || t, "td, th"));
  document.querySelectorAll(CODE).forEach((c) => fitText(c, c.querySelector("pre") || c, "code"));
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
