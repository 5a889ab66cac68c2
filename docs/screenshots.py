"""The README's screenshots, made again from the app as it is: ``make screenshots``.

Starts a server (or uses ``--url``), warms it as ``make run`` does, and visits each view of
``SHOTS`` in a fresh context of headless Debian Chromium, waiting until Streamlit is idle and
every chart and graph on the screen is drawn; then saves the viewport as
``docs/screenshots/<name>.png``. After a change to what a page shows first, run it and read
the README's descriptions of the pictures again.

    python docs/screenshots.py                  # every shot
    python docs/screenshots.py --only home why  # some of them
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.first_screens import DRAWN_JS  # noqa: E402
from benchmarks.load import CHROMIUM, CHROMIUM_ARGS, Server, log  # noqa: E402

OUT = ROOT / "docs" / "screenshots"


@dataclass(frozen=True)
class Shot:
    name: str
    path: str  # page and query, as a link
    width: int = 1280
    height: int = 800


SHOTS = (
    Shot("home", ""),
    Shot("derivatives", "derivatives", height=1250),
    Shot("graph", "graph", height=1250),
    Shot("hvp", "hvp", height=2050),
    Shot("why", "why", height=1500),
    Shot("lesson", "lesson", height=1100),
    Shot("derivatives_zh", "derivatives?lang=zh&deriv.fn=sin(x)*exp(-x%5E2)", height=1250),
    Shot("present_derivatives", "derivatives?present=1", 1920, 1080),
)


def shoot(browser: Any, url: str, shot: Shot, out: Path = OUT, timeout_ms: float = 90_000) -> Path:
    """One view in a fresh context, saved as ``out/<name>.png``; returns the file."""
    ctx = browser.new_context(viewport={"width": shot.width, "height": shot.height})
    try:
        page = ctx.new_page()
        page.goto(f"{url}/{shot.path}")
        page.wait_for_function(DRAWN_JS, timeout=timeout_ms, polling=100)
        page.wait_for_timeout(500)  # Plotly's and Streamlit's transitions end
        target = out / f"{shot.name}.png"
        page.screenshot(path=str(target))
        return target
    finally:
        ctx.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", help="a running server (default: start one)")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="these shots only")
    args = ap.parse_args(argv)
    names = {s.name for s in SHOTS}
    unknown = sorted(set(args.only or ()) - names)
    if unknown:
        ap.error(f"--only: no shot named {', '.join(unknown)} (shots: {', '.join(sorted(names))})")
    shots = [s for s in SHOTS if not args.only or s.name in args.only]
    from playwright.sync_api import sync_playwright

    from hograd_serving.warmup import warm

    server = Server(args.url)
    try:
        log(f"warm-up: {warm(server.url)}")
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
            )
            try:
                for shot in shots:
                    log(f"saved {shoot(browser, server.url, shot).relative_to(ROOT)}")
            finally:
                browser.close()
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
