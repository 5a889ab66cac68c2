// A Graphviz drawing named and described for a screen reader (hograd_ui/parts/a11y.py's
// graphviz): the drawing in the same container as this element becomes an image with the
// name, described by a paragraph that is read and not drawn. Streamlit draws the SVG after
// the run and may draw it again: a watcher over the container names it each time (it sets
// attributes only, which it does not watch: no loop).

function apply(block) {
  const chart = block.querySelector("[data-testid='stGraphVizChart']");
  const data = block.hogradSaid;
  if (!chart || !data) return;
  chart.setAttribute("role", "img");
  chart.setAttribute("aria-label", data.name);
  chart.setAttribute("aria-describedby", data.id);
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
  block.hogradSaid = { name: data.name, id: said.id };
  if (!block.hogradSaidWatch) {
    block.hogradSaidWatch = new MutationObserver(() => apply(block));
    block.hogradSaidWatch.observe(block, { childList: true, subtree: true });
  }
  apply(block);
}
