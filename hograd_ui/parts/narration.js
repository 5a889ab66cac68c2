// A drawing told in words, one step at a time (hograd_ui/parts/narration.py says why).
//
// A group named by the narration's title: Previous and Next buttons, the current step in a
// polite live region (a screen reader reads each new step when a button changes it, not on
// load), and every step in order in an ordered list folded under a summary. The step shown
// stays when the same narration is sent again; a new one starts at its first step.

const CSS = `
.hograd-narration { margin: .25rem 0 1rem; }
.hograd-narration .bar { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; }
.hograd-narration button { font: inherit; color: #2f2d2b; background: #fff; cursor: pointer;
  border: 1px solid #6b7280; border-radius: .5rem; padding: .2rem .75rem; }
.hograd-narration button[aria-disabled="true"] { color: #6b6a68; cursor: default; }
.hograd-narration button:focus-visible, .hograd-narration summary:focus-visible {
  outline: 3px solid #b03a0a; outline-offset: 1px; }
.hograd-narration .now { margin: .4rem 0; }
.hograd-narration summary { cursor: pointer; }
`;

function element(tag, text) {
  const out = document.createElement(tag);
  if (text !== undefined) out.textContent = text;
  return out;
}

function show(root) {
  const { steps, at } = root.hogradNarration;
  const [title, said] = steps[at];
  const now = root.querySelector(".now");
  now.replaceChildren(element("strong", title), document.createTextNode(" " + said));
  root.querySelector(".prev").setAttribute("aria-disabled", String(at === 0));
  root.querySelector(".next").setAttribute("aria-disabled", String(at === steps.length - 1));
}

function step(root, delta) {
  const state = root.hogradNarration;
  const at = Math.min(state.steps.length - 1, Math.max(0, state.at + delta));
  if (at === state.at) return;
  state.at = at;
  show(root);
}

export default function ({ parentElement, data }) {
  if (!document.getElementById("hograd-narration-css")) {
    const style = element("style", CSS);
    style.id = "hograd-narration-css";
    document.head.appendChild(style);
  }
  let root = parentElement.querySelector(":scope > .hograd-narration");
  if (!root) {
    root = element("div");
    root.className = "hograd-narration";
    root.setAttribute("role", "group"); // not a landmark: a page may tell several drawings
    const bar = element("div");
    bar.className = "bar";
    const prev = element("button"), next = element("button");
    prev.type = next.type = "button";
    prev.className = "prev";
    next.className = "next";
    prev.addEventListener("click", () => step(root, -1));
    next.addEventListener("click", () => step(root, 1));
    root.addEventListener("keydown", (event) => { // arrows step too, inside the group
      if (event.key === "ArrowLeft") step(root, -1);
      else if (event.key === "ArrowRight") step(root, 1);
    });
    bar.append(prev, next);
    const now = element("p");
    now.className = "now";
    now.setAttribute("aria-live", "polite");
    now.setAttribute("aria-atomic", "true");
    const all = element("details");
    all.append(element("summary"), element("ol"));
    root.append(bar, now, all);
    parentElement.appendChild(root);
  }
  const same = root.hogradNarration && root.hogradNarration.key === JSON.stringify(data.steps);
  root.hogradNarration = {
    steps: data.steps,
    at: same ? root.hogradNarration.at : 0,
    key: JSON.stringify(data.steps),
  };
  root.setAttribute("aria-label", data.title);
  root.querySelector(".prev").textContent = data.labels.prev;
  root.querySelector(".next").textContent = data.labels.next;
  root.querySelector("summary").textContent = data.labels.all;
  root.querySelector("ol").replaceChildren(...data.steps.map(([title, said]) => {
    const item = element("li");
    item.append(element("strong", title), document.createTextNode(" " + said));
    return item;
  }));
  show(root);
}
