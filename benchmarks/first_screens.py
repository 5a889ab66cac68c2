"""First screens in a real browser: the first visitor after a start, then deep links.

What a lecturer sees: the time from typing a link into Chromium until the page has settled.
Each visit is a fresh browser context (no cache, no cookies: a student's first visit), timed
from ``goto`` until Streamlit is connected and idle with the page's title drawn and no
skeleton placeholder left (``settled``), and until the derivatives page's background columns
are in as well (``complete``; other pages have none, so the two agree there).

1. **first visitor**: the server is started by this script (or given by ``--url`` and assumed
   fresh) and the first visit opens ``--first`` (the derivatives page by default);
2. **deep links**: ``--rounds`` rounds over every page of the app's navigation, each page in a
   new context, on the server the first visit warmed.

Usage::

    python benchmarks/first_screens.py                 # start a server, 3 rounds
    python benchmarks/first_screens.py --json
    python benchmarks/first_screens.py --compare http://127.0.0.1:8611 --compare URL2 --rounds 4

``benchmarks/load.py --first-screens N`` runs the same measurement before its load phases.
Goals (issue 19): a deep link on a warm server settles in at most 2 s, the first visitor after
a start in at most 4 s. Both depend on the machine: report the range over runs, quiet machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.load import CHROMIUM, CHROMIUM_ARGS, Server, log, ms

#: Streamlit connected and idle, the page's title drawn, no skeleton placeholder left, and every
#: chart drawn: Streamlit's Plotly charts and ours (hograd_ui/parts/chart.py, a component whose chart is
#: drawn after its bundle has loaded, with no placeholder meanwhile) have their SVG. Components
#: in the main block only: the sidebar's one (hograd_ui/parts/screen_fit.py) draws nothing.
#: A Graphviz drawing's description (hograd_ui/parts/a11y.py, drawing.js) and the graph told
#: pass by pass (hograd_ui/parts/narration.js) are components that draw no chart: done once
#: their paragraph or their narration is there (a chart's component makes its box first).
SETTLED_JS = (
    "() => { const a = document.querySelector('[data-testid=\"stApp\"]');"
    " return !!a && a.dataset.testScriptState === 'notRunning'"
    " && a.dataset.testConnectionState === 'CONNECTED'"
    " && !!document.querySelector('[data-testid=\"stMain\"] h1')"
    " && [...document.querySelectorAll("
    '\'[data-testid="stPlotlyChart"], [data-testid="stMain"] [data-testid="stBidiComponentRegular"]\')]'
    ".every(c => c.querySelector('.main-svg')"
    " || (c.querySelector('.hograd-said, .hograd-narration')"
    " && !c.querySelector('.hograd-chart')))"
    " && !document.querySelector('[data-testid=\"stSkeleton\"]'); }"
)
#: ... and no background column still on its way (the derivatives page's notes, en and zh).
COMPLETE_JS = SETTLED_JS.replace(
    " && !document.querySelector('[data-testid=\"stSkeleton\"]'); }",
    " && !document.querySelector('[data-testid=\"stSkeleton\"]')"
    " && ![...document.querySelectorAll('[data-testid=\"stAlert\"]')]"
    ".some(e => /still|仍在/.test(e.innerText)); }",
)
#: Settled, and every graph on the page drawn as well: a Graphviz chart has its SVG, and the
#: fonts are loaded (for screenshots: docs/screenshots.py, the tests).
DRAWN_JS = SETTLED_JS.replace(
    "; }",
    " && [...document.querySelectorAll('[data-testid=\"stGraphVizChart\"]')]"
    ".every(c => c.querySelector('svg'))"
    " && document.fonts.status === 'loaded'; }",
)
PAGES = ["", "derivatives", "graph", "hvp", "why"]


def visit(browser: Any, url: str, timeout_ms: float = 60_000) -> tuple[float, float]:
    """(settled, complete) seconds of one visit in a fresh context."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = ctx.new_page()
        t0 = time.perf_counter()
        page.goto(url)
        page.wait_for_function(SETTLED_JS, timeout=timeout_ms, polling=20)
        settled = time.perf_counter() - t0
        page.wait_for_function(COMPLETE_JS, timeout=timeout_ms, polling=20)
        return settled, time.perf_counter() - t0
    finally:
        ctx.close()


def first_screens(
    url: str,
    rounds: int = 3,
    first: str | None = "derivatives",
    pages: list[str] | None = None,
    browser: Any = None,
) -> dict[str, Any]:
    """The first visitor (``first``; None skips it) and ``rounds`` rounds of deep links, in
    ``browser`` (a Playwright Chromium; by default one started here)."""
    if browser is None:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as pw:
            own = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            try:
                return first_screens(url, rounds, first, pages, own)
            finally:
                own.close()
    pages = PAGES if pages is None else pages
    out: dict[str, Any] = {"rounds": rounds}
    if first is not None:
        settled, complete = visit(browser, f"{url}/{first}", 120_000)
        out["first_visitor"] = {
            "page": first,
            "settled_ms": ms(settled),
            "complete_ms": ms(complete),
        }
    times: dict[str, list[tuple[float, float]]] = {p or "home": [] for p in pages}
    for _ in range(rounds):
        for p in pages:
            times[p or "home"].append(visit(browser, f"{url}/{p}"))
    out["deep_links"] = {
        name: {
            "settled_ms": [ms(s) for s, _ in got],
            "complete_ms": [ms(c) for _, c in got],
            "settled_median_ms": ms(statistics.median(s for s, _ in got)),
        }
        for name, got in times.items()
    }
    every = [s for got in times.values() for s, _ in got]
    out["deep_link_settled_median_ms"] = ms(statistics.median(every)) if every else None
    out["deep_link_settled_max_ms"] = ms(max(every)) if every else None
    return out


def side_by_side(
    urls: list[str], rounds: int = 4, pages: list[str] | None = None, browser: Any = None
) -> dict[str, dict[str, list[float]]]:
    """Deep links to several running servers (two versions of the app, say), interleaved:
    every round visits each page on each server in turn, so a busier moment of the machine
    falls on all of them alike. ``{url: {page: [settled seconds, ...]}}``."""
    if browser is None:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as pw:
            own = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            try:
                return side_by_side(urls, rounds, pages, own)
            finally:
                own.close()
    pages = PAGES if pages is None else pages
    out: dict[str, dict[str, list[float]]] = {u: {p or "home": [] for p in pages} for u in urls}
    for _ in range(rounds):
        for p in pages:
            for u in urls:
                out[u][p or "home"].append(visit(browser, f"{u}/{p}")[0])
    return out


def side_by_side_report(r: dict[str, dict[str, list[float]]]) -> str:
    lines = []
    for page in next(iter(r.values())):
        cells = [
            f"{u}: {statistics.median(v[page]):.2f} s ({min(v[page]):.2f}-{max(v[page]):.2f})"
            for u, v in r.items()
        ]
        lines.append(f"{page:12s} " + "   ".join(cells))
    return "\n".join(lines)


def report(r: dict[str, Any]) -> str:
    lines = []
    if r.get("warm_up_ms") is not None:
        lines.append(
            f"warm-up of the fresh server (before the first visitor): {r['warm_up_ms']} ms"
        )
    if "first_visitor" in r:
        f = r["first_visitor"]
        lines.append(
            f"first visitor ({f['page']}): settled {f['settled_ms']} ms, complete "
            f"{f['complete_ms']} ms (goal: 4000 ms)"
        )
    for name, d in r["deep_links"].items():
        lines.append(
            f"deep link {name:12s} settled {d['settled_ms']} ms, complete {d['complete_ms']} ms"
        )
    lines.append(
        f"deep links: median {r['deep_link_settled_median_ms']} ms, max "
        f"{r['deep_link_settled_max_ms']} ms (goal: 2000 ms)"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", help="a fresh server already running (default: start one)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of deep links (default 3)")
    ap.add_argument("--first", default="derivatives", help="the first visitor's page")
    ap.add_argument("--server-env", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument(
        "--warm",
        action="store_true",
        help="warm the fresh server first, as make "
        "run, deploy/replicas.py and the Dockerfile do (hograd_serving/warmup.py)",
    )
    ap.add_argument(
        "--compare",
        action="append",
        default=[],
        metavar="URL",
        help="deep links "
        "only, to two or more running, warm servers (e.g. two versions of the app), "
        "interleaved round by round; medians and ranges side by side",
    )
    ap.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    args = ap.parse_args(argv)
    if not 1 <= args.rounds <= 20:
        ap.error(f"--rounds: expected 1 to 20, got {args.rounds}")
    if len(args.compare) == 1:
        ap.error("--compare: give two or more servers")
    if args.compare:
        r = side_by_side([u.rstrip("/") for u in args.compare], args.rounds)
        print(json.dumps(r) if args.json else side_by_side_report(r))
        return 0
    server = Server(args.url, dict(item.split("=", 1) for item in args.server_env))
    try:
        warmed = None
        if args.warm:
            from hograd_serving.warmup import warm

            t0 = time.perf_counter()
            log(f"warm-up: {warm(server.url)}")
            warmed = ms(time.perf_counter() - t0)
        log(f"first screens on {server.url}")
        result = first_screens(server.url, args.rounds, args.first)
        result["warm_up_ms"] = warmed
        result["server_env"] = args.server_env
    finally:
        server.stop()
    print(json.dumps(result) if args.json else report(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
