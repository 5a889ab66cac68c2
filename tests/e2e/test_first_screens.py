"""benchmarks/first_screens.py against a real server: it visits what it says, in that order,
and every visit settles (counts and structure; the times themselves are the benchmark's)."""

from __future__ import annotations

import pytest

from benchmarks.first_screens import first_screens
from tests.e2e.conftest import running_server


def test_first_visitor_then_one_round_of_deep_links(browser) -> None:
    with running_server("first-screens-server") as url:
        r = first_screens(url, rounds=1, first="derivatives", pages=["", "hvp"], browser=browser)
    assert r["first_visitor"]["page"] == "derivatives"
    assert 0 < r["first_visitor"]["settled_ms"] <= r["first_visitor"]["complete_ms"]
    assert list(r["deep_links"]) == ["home", "hvp"]
    for d in r["deep_links"].values():
        assert len(d["settled_ms"]) == len(d["complete_ms"]) == 1
        assert 0 < d["settled_ms"][0] <= d["complete_ms"][0]


def test_side_by_side_visits_every_server_in_turn(browser) -> None:
    from benchmarks.first_screens import side_by_side

    with running_server("first-screens-a") as a, running_server("first-screens-b") as b:
        r = side_by_side([a, b], rounds=2, pages=["", "hvp"], browser=browser)
    assert list(r) == [a, b]
    for pages in r.values():
        assert list(pages) == ["home", "hvp"]
        assert all(len(v) == 2 and all(s > 0 for s in v) for v in pages.values())


def test_a_traced_visit_finds_every_phase(browser) -> None:
    """The event names first_screen_trace.py reads are in a real Chromium trace of a page
    with a Plotly chart: the phases add up to the settle time, the kinds to the busy time.
    Profiled, the same page's time falls on Plotly's bundle and React's, named without their
    hashes, and the page without a chart has none on Plotly's."""
    from benchmarks.first_screen_trace import PLOTLY_BUNDLES, profile_visit, trace_visit

    with running_server("first-screen-trace") as url:
        first_screens(url, rounds=1, first="hvp", pages=[], browser=browser)  # warm the page
        r = trace_visit(browser, f"{url}/hvp")
        chart, home = profile_visit(browser, f"{url}/hvp"), profile_visit(browser, f"{url}/")
    # the HVP page's contour is drawn by the app's cartesian bundle, not Streamlit's plotly.js
    assert chart[PLOTLY_BUNDLES[1]] > 0 and chart["react-dom"] > 0 and home["react-dom"] > 0
    assert PLOTLY_BUNDLES[0] not in chart and not set(PLOTLY_BUNDLES) & set(home)
    assert not [name for name in chart if name.endswith(".js")]  # every bundle name matched
    assert r["boot_ms"] > 0 and r["server_ms"] > 0 and r["after_ms"] > 0
    assert r["boot_ms"] + r["server_ms"] + r["after_ms"] == pytest.approx(r["settled_ms"], abs=1)
    assert sum(r["main_thread_ms"].values()) == pytest.approx(r["main_thread_busy_ms"], abs=1)
    assert r["main_thread_ms"]["evaluate"] > 0 and r["main_thread_ms"]["javascript"] > 0
    # the bundle's evaluation is part of the main thread's busy time; not always of the
    # "evaluate" kind: the app's bundle is a classic script, and the chart it then draws can
    # run in the same task, which takes its kind from its longest step
    assert 0 < r["plotly_evaluate_ms"] <= r["main_thread_busy_ms"]
