// What Streamlit leaves to the page for accessibility (hograd_ui/parts/a11y.py says why).
//
// Each run: <html lang> follows the student's language. Once per window: a watcher over the
// document makes each code block and each table whose box scrolls (a wide table on a phone)
// focusable (a keyboard user scrolls it with the arrow keys) and each button of a Plotly animation (▶ Play, drawn as SVG) a button that Tab
// reaches and Enter or Space presses. And Streamlit's icons, which are words drawn by a font
// of ligatures ("login", "double_arrow_right"), are shown once that font is in: on a slow
// network or a loaded host it came after Chromium's 3 s wait, and buttons read "loginJoin".

// A static table's box (Streamlit's, around its <table>) that scrolls: wider than the column
// (on a phone) or cut to the screen's height (projected, hograd_ui/parts/screen_fit.js).
function scrollingTables(root) {
  for (const box of root.querySelectorAll("[data-testid='stTable'] > div:not([tabindex])")) {
    if (box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 1) {
      box.tabIndex = 0;
    }
  }
}

function focusable(root) {
  for (const pre of root.querySelectorAll("pre:not([tabindex])")) {
    pre.tabIndex = 0;
  }
  scrollingTables(root);
  for (const g of root.querySelectorAll(".updatemenu-button:not([tabindex])")) {
    g.setAttribute("tabindex", "0");
    g.setAttribute("role", "button");
    g.setAttribute("aria-label", g.textContent.trim());
    g.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" && event.key !== " ") return;
      event.preventDefault();
      g.dispatchEvent(new MouseEvent("click", { bubbles: true }));
    });
  }
}

const ICONS = '24px "Material Symbols Rounded"';

function iconsIn() {
  // a face of the icon font that has come; check() alone is true when no face is declared yet
  for (const face of document.fonts) {
    if (face.family.replace(/["']/g, "") === "Material Symbols Rounded" && face.status === "loaded") {
      return true;
    }
  }
  return false;
}

function iconsWhenLoaded() {
  const root = document.documentElement;
  if (root.classList.contains("hograd-icons")) return;
  const mark = () => {
    if (iconsIn()) root.classList.add("hograd-icons");
  };
  if (!window.hogradIcons) {
    // the face may be declared after this runs: every finished load looks again
    window.hogradIcons = true;
    document.fonts.addEventListener("loadingdone", mark);
  }
  // a font that never comes leaves the words hidden (load() rejects or finds no face)
  document.fonts.load(ICONS, "home").then(mark, () => {});
}

export default function ({ data }) {
  document.documentElement.lang = data.lang;
  iconsWhenLoaded();
  if (window.hogradA11y) return;
  // each batch of added nodes, before the next paint; the attributes set here are not
  // watched (childList only): no loop
  window.hogradA11y = new MutationObserver(() => focusable(document));
  window.hogradA11y.observe(document.body, { childList: true, subtree: true });
  window.addEventListener("resize", () => scrollingTables(document)); // a phone turned
  focusable(document);
}
