"""The server's memory after one visitor tours every page and every tab (issue 36, finding 13).

One headless Chromium visitor opens each link of :data:`TOUR` in turn (every page, every tab of
the derivatives, HVP and "why" pages, the network's tabs, every gallery case, every lesson step)
on a freshly started server, and waits for each view to finish, the derivatives page's
background columns included. After each view the server process's memory is read from
``/proc`` (RSS, and PSS, which counts shared pages once); a sampler records the peak in between.
Child processes (the exact column's sympy children, which end after each function) are
reported apart: they are not the server's own.

Usage::

    python benchmarks/tour_memory.py                 # one tour, a line per view, then a summary
    python benchmarks/tour_memory.py --rounds 3      # three fresh servers, one tour each
    python benchmarks/tour_memory.py --json

Figures are this machine's; the goal (README, docs/performance.md) is a full tour by one
visitor within 600 MB.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.load import Server  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
GOAL_MB = 600

#: (page, query): every page, every tab, every network tab, every gallery case, every step.
TOUR: list[tuple[str, str]] = [
    ("", ""),
    ("derivatives", ""),
    *[("derivatives", f"deriv.tab={t}") for t in ("taylor", "symbolic", "code", "cost")],
    ("derivatives", "deriv.fn=tanh(x)&deriv.order=12"),
    ("graph", ""),
    *[
        ("graph", f"graph.case={c}")
        for c in (
            "no_create_graph",
            "freed_graph",
            "retain_default",
            "unused_input",
            "constant_trap",
            "backward_accumulates",
            "inplace",
            "nan_anomaly",
        )
    ],
    ("graph", "graph.fn=w1**2*sin(w2)"),
    ("hvp", ""),
    *[("hvp", f"hvp.tab={t}") for t in ("hessian", "ways", "slices", "power")],
    *[
        ("hvp", f"hvp.mode=network&hvp.net.tab={t}")
        for t in ("top", "trace", "sharp", "hessian", "training")
    ],
    *[
        ("why", f"why.tab={t}")
        for t in ("newton", "hf", "stability", "stats", "maml", "pinn", "wgan", "curvature")
    ],
    *[
        ("backward", f"backward.variant={v}")
        for v in ("written", "detached", "once", "second_function")
    ],
    ("memory", ""),
    *[("lesson", f"step={s}") for s in range(1, 8)],
]

_IDLE = (
    "() => { const a = document.querySelector('[data-testid=\"stApp\"]');"
    " return !!a && a.dataset.testScriptState === 'notRunning'"
    " && a.dataset.testConnectionState === 'CONNECTED'"
    " && !!document.querySelector('[data-testid=\"stMain\"] h1'); }"
)
_WORKING = "[data-testid='stAlert']:has-text('still')"  # the derivatives page's background notes


def _mb(pid: int) -> tuple[float, float, float]:
    """RSS and PSS of ``pid``, and the PSS of its children, in MiB."""
    proc = psutil.Process(pid)
    info = proc.memory_full_info()
    kids = 0.0
    for child in proc.children(recursive=True):
        with contextlib.suppress(psutil.Error):  # a child that ended meanwhile
            kids += child.memory_full_info().pss
    return info.rss / 2**20, info.pss / 2**20, kids / 2**20


class Peak(threading.Thread):
    """The server's highest RSS and PSS, read every ``every`` seconds until stopped."""

    def __init__(self, pid: int, every: float = 0.25) -> None:
        super().__init__(daemon=True)
        self.pid, self.every = pid, every
        self.rss = self.pss = self._view = 0.0
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.wait(self.every):
            try:
                rss, pss, _ = _mb(self.pid)
            except psutil.Error:
                return
            self.rss, self.pss = max(self.rss, rss), max(self.pss, pss)
            self._view = max(self._view, rss)

    def stop(self) -> None:
        self._done.set()
        self.join()

    def since_last(self) -> float:
        """The highest RSS since the previous call (the whole run's stays in ``rss``)."""
        high, self._view = self._view, 0.0
        return high


def _settle(page, background: bool) -> None:
    """The script finished, twice (a run may start a rerun), and on the derivatives page
    (``background``) no background column's note remains."""
    for _ in range(2):
        page.wait_for_timeout(400)
        page.wait_for_function(_IDLE, timeout=180_000)
    if background:
        page.locator(_WORKING).first.wait_for(state="detached", timeout=180_000)
        page.wait_for_function(_IDLE, timeout=180_000)


def _download_all(page) -> int:
    """Click every download button the view shows and wait for each file; how many came."""
    buttons = page.locator("[data-testid='stMain'] [data-testid='stDownloadButton'] button")
    got = 0
    for i in range(buttons.count()):
        button = buttons.nth(i)
        if not button.is_visible() or not button.is_enabled():
            continue
        with page.expect_download(timeout=180_000) as download:
            button.click()
        download.value.path()  # the whole file arrived
        got += 1
    return got


def tour(rounds_label: str, verbose: bool, downloads: bool) -> dict[str, object]:
    """One fresh server, one visitor through :data:`TOUR`; the memory after each view."""
    from playwright.sync_api import sync_playwright

    server = Server(None)
    try:
        start_rss, start_pss, _ = _mb(server.pid)
        peak = Peak(server.pid)
        peak.start()
        views: list[dict[str, object]] = []
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
            context = browser.new_context(
                viewport={"width": 1440, "height": 900}, accept_downloads=True
            )
            page = context.new_page()
            for name, query in TOUR:
                began = time.perf_counter()
                page.goto(f"{server.url}/{name}" + (f"?{query}" if query else ""))
                _settle(page, background=name == "derivatives")
                files = _download_all(page) if downloads else 0
                rss, pss, kids = _mb(server.pid)
                high = max(peak.since_last(), rss)
                views.append(
                    {
                        "view": f"/{name}?{query}",
                        "rss_mb": round(rss, 1),
                        "peak_rss_mb": round(high, 1),
                        "pss_mb": round(pss, 1),
                        "children_pss_mb": round(kids, 1),
                        "downloads": files,
                        "seconds": round(time.perf_counter() - began, 2),
                    }
                )
                if verbose:
                    print(
                        f"{rounds_label} {views[-1]['view']:<50} RSS {rss:7.1f} (peak {high:7.1f})  PSS {pss:7.1f}"
                        f"  children {kids:6.1f} MB  files {files}",
                        flush=True,
                    )
            browser.close()
        peak.stop()
        end_rss, end_pss, _ = _mb(server.pid)
        return {
            "start_rss_mb": round(start_rss, 1),
            "start_pss_mb": round(start_pss, 1),
            "end_rss_mb": round(end_rss, 1),
            "end_pss_mb": round(end_pss, 1),
            "peak_rss_mb": round(peak.rss, 1),
            "peak_pss_mb": round(peak.pss, 1),
            "views": views,
        }
    finally:
        server.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1, help="fresh servers, one tour each")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--no-downloads",
        action="store_true",
        help="do not click the download buttons (by default every one is)",
    )
    args = parser.parse_args(argv)
    results = [
        tour(f"[{i + 1}/{args.rounds}]", not args.json, not args.no_downloads)
        for i in range(args.rounds)
    ]
    if args.json:
        print(json.dumps(results, indent=1))
        return 0
    files = sum(v["downloads"] for v in results[0]["views"])
    print(
        f"\n{len(TOUR)} views and {files} downloads per tour; goal: {GOAL_MB} MB (RSS) after a full tour"
    )
    for i, r in enumerate(results, 1):
        print(
            f"round {i}: start RSS {r['start_rss_mb']} MB (PSS {r['start_pss_mb']}); "
            f"after the tour RSS {r['end_rss_mb']} (PSS {r['end_pss_mb']}); "
            f"peak RSS {r['peak_rss_mb']} (PSS {r['peak_pss_mb']})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
