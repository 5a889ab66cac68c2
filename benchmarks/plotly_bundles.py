"""Plotly's full bundle against a partial one, in a fresh Chromium context each time.

With ``st.plotly_chart``, a deep link to a page with a chart spent 0.6-0.75 s of it evaluating
Plotly's bundle (``benchmarks/first_screen_trace.py``): Streamlit's front end ships plotly.js
whole (every trace type, 4.7 MB). plotly.js also comes in partial bundles
(``plotly.js-cartesian-dist-min`` on npm: scatter, bar, heatmap, contour, histogram and a few
more; no 3D), and the app's 2-D charts now use that one (hograd_ui/parts/chart.py, static/). This
measures what the lighter bundle saves, on a bare page with nothing else: the time from the
page's start until the bundle has loaded and evaluated, and then until a 121 x 121 contour with
a line over it is drawn (the HVP page's picture).

Usage::

    python benchmarks/plotly_bundles.py --rounds 4        # the app's bundle, in static/
    python benchmarks/plotly_bundles.py --partial other.min.js --rounds 4

The full bundle is the one the plotly Python package ships (the script prints both headers).
Rounds alternate the two bundles, so a busier moment of the machine falls on both alike.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import shutil
import statistics
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.load import CHROMIUM, CHROMIUM_ARGS

#: The bundle the app's 2-D charts use (hograd_ui/parts/chart.py).
APP_BUNDLE = Path(__file__).resolve().parent.parent / "static" / "plotly-cartesian-4.1.1.min.js"

PAGE = """<!doctype html><html><body><div id="c" style="width:700px;height:500px"></div>
<script>
const t0 = performance.now();
const s = document.createElement("script");
s.src = new URLSearchParams(location.search).get("lib");
s.onload = () => {
  window.loaded = performance.now() - t0;
  const n = 121, xs = [], z = [];
  for (let i = 0; i < n; i++) xs.push(-3 + 6 * i / (n - 1));
  for (const y of xs) z.push(xs.map(x => x * x * Math.sin(y)));
  Plotly.newPlot("c", [{type: "contour", x: xs, y: xs, z: z, ncontours: 18,
                        contours: {showlabels: false}},
                       {type: "scatter", x: [0, 1], y: [0, 1], mode: "lines+markers"}],
                 {margin: {t: 20}}).then(() => { window.drawn = performance.now() - t0; });
};
document.body.appendChild(s);
</script></body></html>"""


def full_bundle() -> Path:
    import plotly

    return Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


def header(path: Path) -> str:
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f.read(400).splitlines():
            if "plotly.js" in line:
                return line.strip(" */")
    return "?"


def measure(partial: Path, rounds: int, browser: Any = None) -> dict[str, dict[str, list[float]]]:
    """``{"full"|"partial": {"loaded_ms": [...], "drawn_ms": [...]}}``, rounds alternated, in
    ``browser`` (a Playwright Chromium; by default one started here)."""
    if browser is None:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as pw:
            own = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            try:
                return measure(partial, rounds, own)
            finally:
                own.close()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "page.html").write_text(PAGE, encoding="utf-8")
        shutil.copy(full_bundle(), root / "full.js")
        shutil.copy(partial, root / "partial.js")
        handler = functools.partial(QuietHandler, directory=tmp)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_address[1]}"
        out = {k: {"loaded_ms": [], "drawn_ms": []} for k in ("full", "partial")}
        try:
            for _ in range(rounds):
                for name in out:
                    ctx = browser.new_context()
                    try:
                        page = ctx.new_page()
                        page.goto(f"{base}/page.html?lib={name}.js")
                        page.wait_for_function("() => window.drawn", timeout=60_000)
                        loaded, drawn = page.evaluate("() => [window.loaded, window.drawn]")
                    finally:
                        ctx.close()
                    out[name]["loaded_ms"].append(round(loaded))
                    out[name]["drawn_ms"].append(round(drawn))
        finally:
            server.shutdown()
            server.server_close()
    return out


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:  # no line per request
        pass


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--partial",
        type=Path,
        default=APP_BUNDLE,
        help="a partial plotly.js bundle (default: the app's, in static/)",
    )
    ap.add_argument("--rounds", type=int, default=4, help="visits per bundle (default 4)")
    ap.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    args = ap.parse_args(argv)
    if not args.partial.is_file():
        ap.error(f"--partial: no such file: {args.partial}")
    if not 1 <= args.rounds <= 20:
        ap.error(f"--rounds: expected 1 to 20, got {args.rounds}")
    r = measure(args.partial, args.rounds)
    sizes = {"full": full_bundle().stat().st_size, "partial": args.partial.stat().st_size}
    if args.json:
        print(json.dumps({"sizes": sizes, **r}))
        return 0
    print(f"full:    {header(full_bundle())}, {sizes['full'] / 1e6:.1f} MB")
    print(f"partial: {header(args.partial)}, {sizes['partial'] / 1e6:.1f} MB")
    for name, d in r.items():
        lo, dr = d["loaded_ms"], d["drawn_ms"]
        print(
            f"{name:8s} loaded and evaluated {statistics.median(lo):5.0f} ms ({min(lo)}-"
            f"{max(lo)}), contour drawn {statistics.median(dr):5.0f} ms ({min(dr)}-{max(dr)})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
