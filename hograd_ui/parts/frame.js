// The frame's controls on a phone (hograd_ui/parts/frame.py says why): folded under the
// result. Streamlit draws them in an expander, open, whose header the laptop's CSS hides; on
// a window at most `phone` px wide its header shows and this folds it, once per expander and
// per crossing of that width, by clicking its header (Streamlit's own toggle, so its state
// follows). Wider again, a folded one opens: there its header is hidden.

const CONTROLS = "[class*='st-key-frame-controls-'] details";

function fold(narrow) {
  for (const details of document.querySelectorAll(CONTROLS)) {
    const want = narrow ? "folded" : "open";
    if (details.dataset.hogradFrame === want) continue;
    details.dataset.hogradFrame = want;
    if (details.open === narrow) details.querySelector("summary")?.click();
  }
}

export default function ({ data }) {
  const media = window.matchMedia(`(max-width: ${data.phone}px)`);
  fold(media.matches);
  if (window.hogradFrame) return;
  // each batch of added nodes (a rerun draws the expander again); the data attribute set
  // here is not watched (childList only): no loop
  window.hogradFrame = new MutationObserver(() => fold(media.matches));
  window.hogradFrame.observe(document.body, { childList: true, subtree: true });
  media.addEventListener("change", () => fold(media.matches));
}
