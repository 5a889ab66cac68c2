"""The memory lab under AppTest: the four measurements in both languages, the numbers they
show equal to the compute module's, the sizes kept in the link, the download the module."""

from __future__ import annotations

import inspect

import pytest

from hograd_labs.memory import compute
from hograd_labs.memory.compute import MemoryConfig
from hograd_labs.memory.figures import kib
from tests.app.charts import chart_specs
from tests.app.conftest import open_page
from tests.app.test_links import notes, open_link, query
from tests.arrays import plotly_array

PAGE = "pages/memory.py"
SMALL = {
    "memory.width": "8",
    "memory.depth": "2",
    "memory.batch": "32",
    "memory.micro": "2",
    "memory.orders": "2",
}


def _text(at: object) -> str:
    kinds = ("markdown", "caption", "success", "warning", "error", "info", "code")
    return "\n".join(str(e.value) for kind in kinds for e in at.get(kind))


def _metrics(at: object) -> dict[str, str]:
    return {m.label: m.value for m in at.get("metric")}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_shows_the_modules_counts(lang: str) -> None:
    at = open_link(PAGE, SMALL, lang)
    assert not at.exception and not at.error
    run = compute.run(MemoryConfig(width=8, depth=2, batch=32, micro=2, orders=2))
    tables = "\n".join(str(t.value) for t in at.get("table"))
    for size in (*run.pass_bytes, *run.live_after):
        assert kib(size) in tables  # the per-order table
    shown = set(_metrics(at).values())
    assert {
        kib(run.checkpoint_forward_bytes),
        kib(run.checkpoint_hv_bytes),
        kib(run.big_peak),
        kib(run.micro_peak),
    } <= shown
    # PyTorch's own words, never translated
    assert any(c.value == run.reentrant_error for c in at.code)
    heading = "Memory under double backward" if lang == "en" else "二次反向传播的内存"
    assert at.title[0].value == heading
    (figure,) = chart_specs(at)
    saved, held = figure["data"]
    assert plotly_array(saved["y"]).tolist() == list(run.pass_bytes)
    assert plotly_array(held["y"]).tolist() == list(run.live_after)


def test_the_download_is_the_module_with_the_pages_sizes() -> None:
    at = open_link(PAGE, SMALL)
    config = MemoryConfig(width=8, depth=2, batch=32, micro=2, orders=2)
    script = [c.value for c in at.code if c.language == "python"]
    own = inspect.getsource(compute).splitlines()
    assert len(script) == 1
    changed = [(a, b) for a, b in zip(own, script[0].splitlines(), strict=True) if a != b]
    assert changed == [("    config = MemoryConfig()", f"    config = {config!r}")]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_link_opens_the_sizes_and_writes_the_same_link(lang: str) -> None:
    at = open_link(PAGE, SMALL, lang)
    want = {
        "memory.width": 8,
        "memory.depth": 2,
        "memory.batch": 32,
        "memory.micro": 2,
        "memory.orders": 2,
    }
    assert {k: at.session_state[k] for k in SMALL} == want
    assert notes(at) == []
    assert query(open_page(PAGE, lang)) == {}  # the default view: only the language
    again = open_link(PAGE, query(at), lang)
    assert query(again) == query(at) == SMALL


def test_sizes_outside_the_caps_are_ignored_with_a_note() -> None:
    at = open_link(PAGE, {"memory.width": "500", "memory.micro": "3", "memory.batch": "4096"})
    assert not at.exception
    assert (
        at.session_state["memory.width"],
        at.session_state["memory.micro"],
        at.session_state["memory.batch"],
    ) == (32, 4, 64)
    assert {"memory.width=500", "memory.micro=3", "memory.batch=4096"} <= set(notes(at))


def test_presentation_mode_draws_the_chart_for_a_projector() -> None:
    plain = chart_specs(open_link(PAGE, SMALL))[0]
    big = chart_specs(open_link(PAGE, {**SMALL, "present": "1"}))[0]
    assert big["layout"]["font"]["size"] > plain["layout"]["font"]["size"]
