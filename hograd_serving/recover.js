// A page whose Streamlit front end has broken or stalled loads itself again, at most once in
// 30 s.
//
// Streamlit's front end keeps the page as a tree that each message edits at a path. Under load
// a fragment's rerun can reach a tree a newer run has already reshaped; the front end then
// throws "Bad delta path index 8 (should be between [0, 2])" and the page stays blank until it
// is loaded again. In a class this hit a phone following the lecturer to a new page. Rarer, a
// page stays "running" with nothing more coming from its server (a run whose end never came);
// no timer of the page fires again, and a follower stops following. Rarer still, a follower's
// page switched by the lecturer's share ends its run with the page's whole main area emptied
// (its server drew it; the front end dropped it), and stays so. Loaded again, the page is
// a fresh session: everything a student has here lives in the address (class, seat, follow,
// step) and on the server, so it puts them back where they were. The time of the last such
// reload is kept for the tab (sessionStorage): another within 30 s is left alone, never a loop.
(() => {
  if (window.hogradRecover) return;
  const BROKEN = /Bad delta path index|Cannot set a node at a delta path/;
  const KEY = "hograd.recovered";
  const GAP_MS = 30000;
  // longer than any run's silence: heavy work stops at the gate's 30 s deadline plus 10 s
  const STALL_MS = 60000;
  const reload = () => {
    try {
      const last = Number(window.sessionStorage.getItem(KEY)) || 0;
      if (Date.now() - last < GAP_MS) return false;
      window.sessionStorage.setItem(KEY, String(Date.now()));
    } catch (err) {
      return false; // no storage to remember the last reload by: no reload
    }
    window.location.reload();
    return true;
  };
  const broken = (text) => BROKEN.test(String(text || "")) && reload();
  // Only the served page's head sees the socket made (the app's component comes too late):
  // each message from the server is noted, so that a stall can be told from a long run.
  const Native = window.WebSocket;
  if (Native && document.readyState === "loading") {
    window.WebSocket = class extends Native {
      constructor(...args) {
        super(...args);
        window.hogradHeard = Date.now();
        this.addEventListener("message", () => {
          window.hogradHeard = Date.now();
        });
      }
    };
  }
  const stalled = () => {
    const app = document.querySelector("[data-testid='stApp']");
    const heard = window.hogradHeard;
    const running = !!app && app.dataset.testScriptState === "running";
    return running && typeof heard === "number" && Date.now() - heard > STALL_MS && reload();
  };
  // Nothing in the main area (no text, no drawing) while the run is over and the server
  // connected, for 10 s: every page draws at least its title there, and a paused class its
  // notice; the moment between a run's end and the next one's start is far shorter.
  const BLANK_MS = 10000;
  let blankSince = null;
  const blank = (now = Date.now()) => {
    const app = document.querySelector("[data-testid='stApp']");
    const main = document.querySelector("[data-testid='stMain']");
    const idle =
      !!app && app.dataset.testScriptState === "notRunning" && app.dataset.testConnectionState === "CONNECTED";
    const empty = !!main && main.innerText.trim() === "" && !main.querySelector("svg, canvas, img, iframe");
    if (!idle || !empty) {
      blankSince = null;
      return false;
    }
    if (blankSince === null) blankSince = now;
    return now - blankSince >= BLANK_MS && reload();
  };
  window.hogradRecover = { broken, stalled, blank };
  window.addEventListener("error", (event) => broken(event.message || (event.error && event.error.message)));
  window.addEventListener("unhandledrejection", (event) => broken(event.reason && event.reason.message));
  window.setInterval(() => stalled() || blank(), 5000);
})();
