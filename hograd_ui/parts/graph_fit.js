// Presentation mode: every Graphviz drawing ends on the first 1920x1080 screen
// (hograd_ui/parts/graph_fit.py says why and when).
//
// The page's CSS draws a drawing at 1.8 times its own size (23 px node text); one taller than
// the room between its top and the screen's bottom edge is drawn smaller, by CSS zoom, until
// it fits. One whose top is within FLOOR px of the bottom edge keeps its size: it is read on
// the page's next screen, scrolled to. Each fit starts again from the page's size, in one
// frame (no drawing is painted in between), when the main block's elements change (a drawing
// is replaced, an element above comes or goes) or the window is resized, and only for a
// drawing whose source, top or window differs from its last fit; the zoom set here is an
// attribute change, which the observer does not watch: no loop.

const GAP = 16, FLOOR = 200, ROUNDS = 8;
const SVG = "[data-testid='stGraphVizChart'] svg";

const done = new WeakMap(); // svg -> what its last fit was for: its drawing, its top, the window

function fit(svg) {
  const top = svg.parentElement.getBoundingClientRect().top + window.scrollY;
  const key = [svg.getAttribute("viewBox"), Math.round(top), window.innerHeight].join();
  if (done.get(svg) === key) return;
  done.set(svg, key);
  svg.style.zoom = "";
  for (let round = 0; round < ROUNDS; round++) {
    const box = svg.getBoundingClientRect();
    const room = window.innerHeight - (box.top + window.scrollY) - GAP;
    if (!box.height || box.height <= room || room < FLOOR) return;
    const zoom = parseFloat(getComputedStyle(svg).zoom) || 1;
    // a drawing as wide as the column is scaled by the column, not the zoom: the next round
    // measures again and goes on shrinking until the height follows
    svg.style.zoom = String(zoom * Math.max(0.5, room / box.height));
  }
}

function fitAll() {
  document.querySelectorAll(SVG).forEach(fit);
}

export default function () {
  if (window.hogradGraphFit) {
    window.hogradGraphFit();
    return;
  }
  let pending = false;
  const later = () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; fitAll(); });
  };
  window.hogradGraphFit = later;
  const watch = () => {
    const main = document.querySelector("[data-testid='stMainBlockContainer']");
    if (!main) return setTimeout(watch, 200);
    new MutationObserver(later).observe(main, { childList: true, subtree: true });
    window.addEventListener("resize", later);
    later();
  };
  watch();
}
