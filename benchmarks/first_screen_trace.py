"""Where a deep link's first screen spends its time, from Chromium's own trace.

``benchmarks/first_screens.py`` says how long a deep link takes to settle; this says where the
time goes. Each visit is a fresh browser context (a student's first visit, as there), traced
with Chromium's timeline categories, and cut into phases on the page's renderer main thread:

- ``boot``: from the request for the page until Streamlit's front end opens its websocket
  (Streamlit's HTML, JavaScript and React start-up; no script of ours has run yet);
- ``server``: from the websocket's opening until the last message of the script's first run
  (the server's part: the script run and its messages; a burst of messages ends at the first
  silence of ``BURST_GAP_MS``);
- ``after``: from there until the page settled (the same test as first_screens.py): the
  front end fetching and evaluating the bundles of the element types the script sent, and
  drawing them.

The renderer's main thread is also split by what its tasks were doing (``evaluate``: running
the top level of a JavaScript bundle; ``javascript``: calls into already-loaded code, React's
rendering and Plotly's drawing among them; ``style_layout_paint``; ``other``), and the
longest evaluation after Plotly's bundle arrived is reported on its own (``plotly_evaluate``).

With ``--bundles``, other fresh visits run under V8's sampling profiler instead of the trace,
and the renderer's JavaScript time is summed by the bundle its functions came from (the file
name without its content hash: ``PlotlyChart``, ``react-dom``, ...), with V8's own entries
beside them (``(program)``: time on the thread that no JavaScript function holds, the browser's
parsing, compiling, style and layout among it; ``(garbage collector)``) and ``(idle)`` apart:
which element types a page's first screen pays for, and how much.

Usage::

    python benchmarks/first_screen_trace.py --url http://127.0.0.1:8501 --page hvp --rounds 3
    python benchmarks/first_screen_trace.py --url URL --page why --json
    python benchmarks/first_screen_trace.py --url URL --page derivatives --bundles

The server must be running and warm (``make run`` warms it). Every figure depends on the
machine: report the range over rounds, with the command.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.first_screens import SETTLED_JS
from benchmarks.load import CHROMIUM, CHROMIUM_ARGS, log

#: Trace categories: the renderer's tasks and JavaScript, network requests, websockets.
CATEGORIES = [
    "devtools.timeline",
    "disabled-by-default-devtools.timeline",
    "v8.execute",
    "v8",
    "loading",
    "blink.user_timing",
]
#: A websocket silence this long ends the script's first run (its messages come in a burst).
BURST_GAP_MS = 250.0
#: What a main-thread task was doing, by the name of its longest traced step.
KINDS = {
    "evaluate": (
        "v8.evaluateModule",
        "EvaluateScript",
        "v8.compileModule",
        "v8.compile",
        "CompileScript",
    ),
    "javascript": (
        "FunctionCall",
        "v8.callFunction",
        "RunMicrotasks",
        "TimerFire",
        "FireAnimationFrame",
        "EventDispatch",
        "v8.run",
    ),
    "style_layout_paint": (
        "UpdateLayoutTree",
        "Layout",
        "PrePaint",
        "Paint",
        "Layerize",
        "ParseAuthorStyleSheet",
    ),
}
_KIND_OF = {name: kind for kind, names in KINDS.items() for name in names}


def _ms(us: float) -> float:
    return round(us / 1000.0, 1)


def analyse(events: list[dict[str, Any]], page_url: str, settled_ms: float) -> dict[str, Any]:
    """Phases of one traced visit (see the module's docstring). ``events`` are the trace's
    ``traceEvents``; ``settled_ms`` is the settle time measured from ``goto``.

    Raises:
        ValueError: the trace has no request for ``page_url`` or no renderer main thread.
    """
    names = {
        (e.get("pid"), e.get("tid")): e.get("args", {}).get("name")
        for e in events
        if e.get("name") == "thread_name"
    }
    busy: dict[tuple, float] = {}
    for e in events:
        key = (e.get("pid"), e.get("tid"))
        if e.get("name") == "RunTask" and e.get("ph") == "X" and names.get(key) == "CrRendererMain":
            busy[key] = busy.get(key, 0.0) + e.get("dur", 0)
    if not busy:
        raise ValueError("the trace has no renderer main thread (CrRendererMain) with tasks")
    main = max(busy, key=busy.__getitem__)
    starts = [
        e["ts"]
        for e in events
        if e.get("name") == "ResourceSendRequest"
        and e.get("args", {}).get("data", {}).get("url") == page_url
    ]
    if not starts:
        raise ValueError(f"the trace has no request for {page_url}")
    t0 = min(starts)
    end = t0 + settled_ms * 1000.0

    ws_open = min((e["ts"] for e in events if e.get("name") == "WebSocketCreate"), default=None)
    received = sorted(e["ts"] for e in events if e.get("name") == "WebSocketReceive")
    first_run_end = None
    if ws_open is not None and received:
        first_run_end = received[0]
        for ts in received[1:]:
            if ts - first_run_end > BURST_GAP_MS * 1000.0:
                break
            first_run_end = ts

    on_main = [e for e in events if (e.get("pid"), e.get("tid")) == main and e.get("ph") == "X"]
    tasks = sorted(
        (e for e in on_main if e.get("name") == "RunTask" and t0 <= e["ts"] < end),
        key=lambda e: e["ts"],
    )
    steps = sorted((e for e in on_main if e.get("name") in _KIND_OF), key=lambda e: e["ts"])
    by_kind = {kind: 0.0 for kind in (*KINDS, "other")}
    longest: list[dict[str, Any]] = []
    i = 0
    for task in tasks:
        stop = task["ts"] + task.get("dur", 0)
        while i < len(steps) and steps[i]["ts"] < task["ts"]:
            i += 1
        inside = []
        j = i
        while j < len(steps) and steps[j]["ts"] < stop:
            inside.append(steps[j])
            j += 1
        top = max(inside, key=lambda e: e.get("dur", 0), default=None)
        kind = _KIND_OF[top["name"]] if top is not None else "other"
        by_kind[kind] += task.get("dur", 0)
        longest.append({"at_ms": _ms(task["ts"] - t0), "ms": _ms(task.get("dur", 0)), "kind": kind})

    finished = {
        e.get("args", {}).get("data", {}).get("requestId"): e["ts"]
        for e in events
        if e.get("name") == "ResourceFinish"
    }
    plotly_in = [
        finished.get(e["args"]["data"].get("requestId"))
        for e in events
        if e.get("name") == "ResourceSendRequest"
        and any(b in e.get("args", {}).get("data", {}).get("url", "") for b in PLOTLY_BUNDLES)
    ]
    plotly_in = [ts for ts in plotly_in if ts is not None]
    plotly_eval = None
    if plotly_in:  # Streamlit's is a module, the app's a classic script (hograd_ui/parts/chart.js)
        evals = [
            e.get("dur", 0)
            for e in on_main
            if e.get("name") in ("v8.evaluateModule", "EvaluateScript")
            and e["ts"] >= min(plotly_in)
            and e["ts"] < end
        ]
        plotly_eval = _ms(max(evals)) if evals else None

    def at(ts: float | None) -> float | None:
        return None if ts is None else _ms(ts - t0)

    boot = at(ws_open)
    first_run = at(first_run_end)
    return {
        "settled_ms": round(settled_ms, 1),
        "boot_ms": boot,
        "server_ms": None if boot is None or first_run is None else round(first_run - boot, 1),
        "after_ms": None if first_run is None else round(settled_ms - first_run, 1),
        "main_thread_busy_ms": _ms(sum(t.get("dur", 0) for t in tasks)),
        "main_thread_ms": {kind: _ms(us) for kind, us in by_kind.items()},
        "plotly_evaluate_ms": plotly_eval,
        "longest_tasks": sorted(longest, key=lambda t: -t["ms"])[:5],
    }


#: The bundles that hold plotly.js: Streamlit's (all of it, for ``st.plotly_chart``) and the
#: app's cartesian one (static/, for hograd_ui/parts/chart.py), by the names :func:`_bundle` gives them.
PLOTLY_BUNDLES = ("PlotlyChart", "plotly-cartesian-4.1.1.min")
#: A bundle's file name: its name, a dot, Vite's content hash, ``.js``.
_HASHED = re.compile(r"^(?P<name>.+?)\.[A-Za-z0-9_-]{8}\.js$")


def _bundle(url: str, function: str) -> str:
    """The bundle a profiled function belongs to: its script's name without the content hash;
    V8's own entries (``(program)``, ``(idle)``, ``(garbage collector)``) by their name;
    a native function called from JavaScript (``appendChild``) as ``(native)``."""
    if not url:
        return function if function.startswith("(") else "(native)"
    name = url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    m = _HASHED.match(name)
    return m["name"] if m else name.removesuffix(".js")  # the app's own: static/, components


def by_bundle(profile: dict[str, Any]) -> dict[str, float]:
    """Milliseconds of a V8 CPU profile (DevTools' ``Profiler.stop``) by bundle, largest
    first: each sample's time is the self time of the function it caught."""
    frames = {n["id"]: n["callFrame"] for n in profile["nodes"]}
    totals: dict[str, float] = {}
    for node, dt in zip(profile["samples"], profile["timeDeltas"], strict=True):
        frame = frames[node]
        key = _bundle(frame.get("url", ""), frame.get("functionName", ""))
        totals[key] = totals.get(key, 0.0) + dt
    return {k: _ms(v) for k, v in sorted(totals.items(), key=lambda kv: -kv[1])}


def profile_visit(
    browser: Any, url: str, timeout_ms: float = 60_000, interval_us: int = 200
) -> dict[str, float]:
    """One visit to ``url`` in a fresh context under V8's sampling profiler, from ``goto``
    until settled: :func:`by_bundle` of its profile."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = ctx.new_page()
        cdp = ctx.new_cdp_session(page)
        cdp.send("Profiler.enable")
        cdp.send("Profiler.setSamplingInterval", {"interval": interval_us})
        cdp.send("Profiler.start")
        page.goto(url)
        page.wait_for_function(SETTLED_JS, timeout=timeout_ms, polling=20)
        return by_bundle(cdp.send("Profiler.stop")["profile"])
    finally:
        ctx.close()


def bundle_summary(visits: list[dict[str, float]], top: int = 12) -> dict[str, dict[str, float]]:
    """Median and range of each bundle's milliseconds over the visits (0 where a visit had
    none of it), the ``top`` largest medians, ``(idle)`` left out."""
    names = {k for v in visits for k in v} - {"(idle)"}
    out = {}
    for name in names:
        got = [v.get(name, 0.0) for v in visits]
        out[name] = {"median": round(statistics.median(got), 1), "min": min(got), "max": max(got)}
    return dict(sorted(out.items(), key=lambda kv: -kv[1]["median"])[:top])


def bundle_report(page: str, visits: list[dict[str, float]]) -> str:
    busy = [sum(v for k, v in visit.items() if k != "(idle)") for visit in visits]
    lines = [
        f"deep link {page!r}, {len(visits)} profiled visits: the renderer's time by bundle "
        f"(median, range in ms); busy {statistics.median(busy):.0f} "
        f"({min(busy):.0f}-{max(busy):.0f})"
    ]
    for name, d in bundle_summary(visits).items():
        lines.append(f"  {name:50s} {d['median']:7.0f}  ({d['min']:.0f}-{d['max']:.0f})")
    return "\n".join(lines)


def trace_visit(browser: Any, url: str, timeout_ms: float = 60_000) -> dict[str, Any]:
    """One traced visit to ``url`` in a fresh context, analysed."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = ctx.new_page()
        browser.start_tracing(page=page, categories=CATEGORIES)
        try:
            t0 = time.perf_counter()
            page.goto(url)
            page.wait_for_function(SETTLED_JS, timeout=timeout_ms, polling=20)
            settled = (time.perf_counter() - t0) * 1000.0
        finally:
            raw = browser.stop_tracing()
        data = json.loads(raw)
        events = data["traceEvents"] if isinstance(data, dict) else data
        return analyse(events, url, settled)
    finally:
        ctx.close()


def summary(visits: list[dict[str, Any]]) -> dict[str, Any]:
    """Median and range of each phase over the visits."""
    out: dict[str, Any] = {"visits": len(visits)}
    keys = [
        "settled_ms",
        "boot_ms",
        "server_ms",
        "after_ms",
        "main_thread_busy_ms",
        "plotly_evaluate_ms",
    ]
    keys += [f"main_thread_ms.{k}" for k in (*KINDS, "other")]
    for key in keys:
        head, _, tail = key.partition(".")
        got = [v[head][tail] if tail else v[head] for v in visits]
        got = [g for g in got if g is not None]
        if got:
            out[key] = {
                "median": round(statistics.median(got), 1),
                "min": min(got),
                "max": max(got),
            }
    return out


def report(page: str, s: dict[str, Any]) -> str:
    lines = [f"deep link {page!r}, {s['visits']} traced visits (median, range in ms):"]
    for key, label in (
        ("settled_ms", "settled"),
        ("boot_ms", "  boot: page request to websocket open"),
        ("server_ms", "  server: the script's first run, its messages"),
        ("after_ms", "  after: element bundles evaluated, elements drawn"),
        ("main_thread_busy_ms", "renderer main thread busy"),
        ("main_thread_ms.evaluate", "  evaluating bundles"),
        ("main_thread_ms.javascript", "  running JavaScript (React, drawing)"),
        ("main_thread_ms.style_layout_paint", "  style, layout, paint"),
        ("main_thread_ms.other", "  other"),
        ("plotly_evaluate_ms", "Plotly's bundle, evaluated"),
    ):
        if key in s:
            d = s[key]
            lines.append(f"{label:52s} {d['median']:7.0f}  ({d['min']:.0f}-{d['max']:.0f})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", required=True, help="a running, warm server")
    ap.add_argument("--page", default="hvp", help="the page's path (default hvp; '' for home)")
    ap.add_argument("--rounds", type=int, default=3, help="traced visits (default 3)")
    ap.add_argument(
        "--bundles",
        action="store_true",
        help="profile the visits instead of tracing them: the renderer's JavaScript time by bundle",
    )
    ap.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    args = ap.parse_args(argv)
    if not 1 <= args.rounds <= 20:
        ap.error(f"--rounds: expected 1 to 20, got {args.rounds}")
    from playwright.sync_api import sync_playwright

    url = f"{args.url.rstrip('/')}/{args.page}"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            ctx = browser.new_context()  # one untraced visit: the server's caches for the page
            page = ctx.new_page()
            page.goto(url)
            page.wait_for_function(SETTLED_JS, timeout=60_000, polling=20)
            ctx.close()
            visits = []
            for k in range(args.rounds):
                if args.bundles:
                    visits.append(profile_visit(browser, url))
                    log(f"profile {k + 1}/{args.rounds}")
                    continue
                visits.append(trace_visit(browser, url))
                log(f"trace {k + 1}/{args.rounds}: settled {visits[-1]['settled_ms']:.0f} ms")
        finally:
            browser.close()
    if args.bundles:
        print(
            json.dumps(
                {"page": args.page, "bundles": bundle_summary(visits, top=100), "visits": visits}
            )
            if args.json
            else bundle_report(args.page, visits)
        )
        return 0
    s = summary(visits)
    print(
        json.dumps({"page": args.page, "summary": s, "visits": visits})
        if args.json
        else report(args.page, s)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
