"""hograd_serving.warmup against a real server: after it, the first student's visit to the
derivatives page is served from the caches the warm-up filled (counted by Streamlit's own
cache metrics, /_stcore/metrics), with its background columns already in; a server that is
not there is reported, not raised."""

from __future__ import annotations

import re
import urllib.request

from benchmarks.st_client import StreamlitClient
from hograd_serving.warmup import warm
from hograd_ui.i18n import tr
from tests.e2e.conftest import running_server

CURVES = "hograd_labs.derivatives.cached.curves"  # the derivatives page's main computation


def lookups(url: str, cache: str) -> dict[str, int]:
    """{"hit": n, "miss": m} of one cached function, from Streamlit's metrics endpoint."""
    with urllib.request.urlopen(f"{url}/_stcore/metrics", timeout=10) as resp:
        text = resp.read().decode()
    found = re.findall(
        rf'cache_lookups_total{{cache="{re.escape(cache)}",[^}}]*result="(\w+)"}} (\d+)', text
    )
    return {result: int(n) for result, n in found}


def visit(url: str) -> str:
    with StreamlitClient(url, timeout=120) as student:
        student.open("derivatives")
        assert not student.auto_reruns  # the page polls for nothing: every column is in
        return student.text()


def test_the_first_student_after_a_warm_up_is_served_from_its_caches() -> None:
    with running_server("warmup-server") as url:
        assert lookups(url, CURVES).get("miss", 0) == 0  # a fresh server: nothing computed yet
        assert warm(url, ("derivatives", "")) == {"derivatives": "ok", "home": "ok"}
        before = lookups(url, CURVES)
        assert before["miss"] >= 1  # the warm-up computed the default view
        text = visit(url)
        after = lookups(url, CURVES)
    assert tr("deriv.title", "en") in text and "still" not in text
    assert after["miss"] == before["miss"]  # nothing computed again for the student
    assert after["hit"] > before["hit"]


def test_a_server_that_is_not_there_is_reported() -> None:
    outcome = warm("http://127.0.0.1:9", ("derivatives",))
    assert list(outcome) == ["derivatives"] and outcome["derivatives"] != "ok"


def test_the_warm_up_runs_the_gallery_the_error_decoder_reads() -> None:
    """The decoder runs the gallery case behind a pasted message (the first paste of it
    runs the case, in a fresh process for some); the warm-up pastes the commonest one, so a
    student's paste of it finds the run cached."""
    from pages import SITE

    decoder = next(p for p in SITE.warm() if p.startswith("backward?"))
    pasted = decoder.split("backward.decode=", 1)[1]
    with running_server("warmup-decoder") as url:
        assert warm(url, (decoder,)) == {"backward": "ok"}
        before = lookups(url, "hograd_serving.cached.case_for")
        assert before.get("miss", 0) >= 1  # the case ran once
        with StreamlitClient(url, timeout=120) as student:
            student.open("backward", f"backward.decode={pasted}")
        after = lookups(url, "hograd_serving.cached.case_for")
    assert after["miss"] == before["miss"] and after["hit"] > before.get("hit", 0)
