// A page whose Streamlit front end has broken loads itself again, at most once in 30 s.
//
// Streamlit's front end keeps the page as a tree that each message edits at a path. Under load
// a fragment's rerun can reach a tree a newer run has already reshaped; the front end then
// throws "Bad delta path index 8 (should be between [0, 2])" and the page stays blank until it
// is loaded again. In a class this hit a phone following the lecturer to a new page. Everything
// a student has here lives in the address (class, seat, follow, step) and on the server, so
// loading the page again puts them back where they were. The time of the last such reload is
// kept for the tab (sessionStorage): a second break within 30 s is left as it is, never a loop.
(() => {
  if (window.hogradRecover) return;
  window.hogradRecover = true;
  const BROKEN = /Bad delta path index|Cannot set a node at a delta path/;
  const KEY = "hograd.recovered";
  const GAP_MS = 30000;
  const recover = (text) => {
    if (!BROKEN.test(String(text || ""))) return;
    try {
      const last = Number(window.sessionStorage.getItem(KEY)) || 0;
      if (Date.now() - last < GAP_MS) return;
      window.sessionStorage.setItem(KEY, String(Date.now()));
    } catch (err) {
      return; // no storage to remember the last reload by: no reload
    }
    window.location.reload();
  };
  window.addEventListener("error", (event) => recover(event.message || (event.error && event.error.message)));
  window.addEventListener("unhandledrejection", (event) => recover(event.reason && event.reason.message));
})();
