"""What a browser test pays per page load: a fresh Chromium context for each address, as the
suite's browser tests did, against one context kept from load to load (tests/e2e/conftest.py's
``lend_page``), side by side in one run on one server.

Both open the same addresses (``--links`` of tests/e2e/test_links_browser.py's hostile links,
each a new Streamlit session) and wait for each run to end, ``--rounds`` times in turn. For each
way: Chromium's CPU seconds (every Chromium process this run started, the exited renderers
counted through their parents), the server's, and the wall time; then the kept context's
share of the fresh one's. The browser parses and compiles Streamlit's ~110 script chunks on a
context's first load; a kept context has them in its HTTP cache and its code cache.

    python -m benchmarks.browser_reuse --rounds 3 --json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from anywhere

from tests.e2e.conftest import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    Runs,
    running_server,
    wait_for_app,
)
from tests.e2e.test_links_browser import HOSTILE  # noqa: E402

VIEWPORT = {"width": 1280, "height": 800}


def _chromium_cpu() -> float:
    """CPU seconds of this process's Chromium processes, with the children they reaped."""
    total = 0.0
    for proc in psutil.Process().children(recursive=True):
        try:
            if "chrom" in proc.name():
                t = proc.cpu_times()
                total += t.user + t.system + t.children_user + t.children_system
        except psutil.Error:
            continue
    return total


def _cpu(pid: int) -> float:
    t = psutil.Process(pid).cpu_times()
    return t.user + t.system


def _listening(port: int) -> int:
    for conn in psutil.net_connections(kind="tcp"):
        if conn.status == psutil.CONN_LISTEN and conn.laddr.port == port and conn.pid:
            return conn.pid
    raise RuntimeError(f"nothing listens on {port}")


def _loads(browser, url: str, links: list[str], kept: bool) -> None:
    def context():
        ctx = browser.new_context(viewport=VIEWPORT)
        ctx.on("page", Runs.track)
        return ctx

    ctx = context() if kept else None
    page = ctx.new_page() if ctx is not None else None
    for link in links:
        if not kept:
            ctx = context()
            page = ctx.new_page()
        page.goto(url + link)
        wait_for_app(page)
        if not kept:
            ctx.close()
    if kept:
        ctx.close()


def measure(links: int, rounds: int) -> dict[str, object]:
    from playwright.sync_api import sync_playwright

    addresses = [f"/{p}?{q}&lang=en" for p, q, _ in HOSTILE[4 : 4 + links]]
    ways: dict[str, dict[str, list[float]]] = {
        way: {"chromium_cpu_s": [], "server_cpu_s": [], "wall_s": []} for way in ("fresh", "kept")
    }
    with running_server("browser-reuse") as url, sync_playwright() as pw:
        server = _listening(int(url.rsplit(":", 1)[1]))
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        _loads(browser, url, addresses[:1], kept=False)  # the server's first visit, not counted
        for _ in range(rounds):
            for way in ways:
                chromium, cpu, began = _chromium_cpu(), _cpu(server), time.monotonic()
                _loads(browser, url, addresses, kept=way == "kept")
                ways[way]["wall_s"].append(round(time.monotonic() - began, 1))
                ways[way]["chromium_cpu_s"].append(round(_chromium_cpu() - chromium, 1))
                ways[way]["server_cpu_s"].append(round(_cpu(server) - cpu, 1))
        browser.close()
    ratio = {
        what: round(sum(ways["kept"][what]) / sum(ways["fresh"][what]), 2) for what in ways["fresh"]
    }
    return {"loads_per_round": len(addresses), "rounds": rounds, **ways, "kept_over_fresh": ratio}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--links", type=int, default=20, help="addresses per round (default 20)")
    ap.add_argument("--rounds", type=int, default=2, help="rounds of both ways (default 2)")
    ap.add_argument("--json", action="store_true", help="print JSON")
    args = ap.parse_args(argv)
    if not 1 <= args.links <= len(HOSTILE) - 4 or not 1 <= args.rounds <= 20:
        print(f"error: --links 1..{len(HOSTILE) - 4}, --rounds 1..20", file=sys.stderr)
        return 2
    result = measure(args.links, args.rounds)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for way in ("fresh", "kept"):
            print(way, {k: v for k, v in result[way].items()})
        print("kept / fresh:", result["kept_over_fresh"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
