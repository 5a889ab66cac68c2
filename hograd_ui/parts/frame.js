// The frame's controls on a phone (hograd_ui/parts/frame.py says why): folded under the
// result. Streamlit draws them in an expander, open, whose header the laptop's CSS hides; on
// a window at most `phone` px wide its header shows and this folds it, once per expander and
// per crossing of that width, by clicking its header (Streamlit's own toggle, so its state
// follows), once a run has ended (the expander then holds all it will hold). Wider again, a
// folded one opens: there its header is hidden. A message drawn in the controls (a refused
// function, a range the wrong way round) keeps them open, or opens them, once per message:
// the page has nothing else to show then, and the reader must see what to fix.

const CONTROLS = "[class*='st-key-frame-controls-'] details";
const MESSAGE = "[data-testid='stAlert']";
const STATE = "data-test-script-state";

function idle() {
  const app = document.querySelector("[data-testid='stApp']");
  return !app || app.getAttribute(STATE) === "notRunning";
}

function fold(narrow) {
  if (narrow && !idle()) return;
  const width = narrow ? "narrow" : "wide";
  for (const details of document.querySelectorAll(CONTROLS)) {
    const summary = details.querySelector("summary");
    const message = narrow ? details.querySelector(MESSAGE) : null;
    const fresh = message !== null && !message.dataset.hogradShown;
    if (fresh) message.dataset.hogradShown = "1";
    if (details.dataset.hogradFrame !== width) {
      details.dataset.hogradFrame = width;
      const open = !narrow || message !== null;
      if (details.open !== open) summary?.click();
    } else if (fresh && !details.open) {
      summary?.click();
    }
  }
}

export default function ({ data }) {
  const media = window.matchMedia(`(max-width: ${data.phone}px)`);
  fold(media.matches);
  if (window.hogradFrame) return;
  // each batch of added nodes (a rerun draws the expander again) and each end of a run; the
  // data attributes set here are not watched: no loop
  window.hogradFrame = new MutationObserver(() => fold(media.matches));
  window.hogradFrame.observe(document.body, {
    childList: true,
    subtree: true,
    attributes: true,
    attributeFilter: [STATE],
  });
  media.addEventListener("change", () => fold(media.matches));
}
