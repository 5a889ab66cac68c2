"""torchviz's view of a flag-lab run (issue 15 d): the line of code shown makes the same
drawing when run after the run's own snippet, and its error where a saved tensor was freed."""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from collections import Counter

import pytest

from hograd_core import parse
from hograd_core.flaglab.flags import FlagSettings, run_flags
from hograd_core.graph_dot import escape_newlines
from hograd_labs.graph.cached import TORCHVIZ, torchviz_views
from hograd_serving.jobs import run_isolated

CASES = [
    ("x**3", FlagSettings()),
    ("x**3", FlagSettings(create_graph=True)),
    ("x**3", FlagSettings(action="again")),
    ("tanh(x)", FlagSettings(True, True, action="again")),
    ("x + 1", FlagSettings(retain_graph=False, action="again")),
    ("sin(x)*exp(-x**2)", FlagSettings(create_graph=True, unused_input=True, allow_unused=True)),
    ("2*x", FlagSettings(create_graph=True)),
]


def shape(source: str) -> tuple[Counter, int]:
    """torchviz names nodes by id(): compare the labels and the number of edges."""
    labels = Counter(re.findall(r"\[label=(\"[^\"]*\"|[^\s\]]+)", source))
    return labels, len(re.findall(r"^\t\d+ -> \d+", source, re.M))


def run_line(snippet: str, line: str) -> object:
    """The run's own snippet (up to its error, if any), then the torchviz line."""
    namespace: dict = {}
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        with contextlib.suppress(RuntimeError, TypeError, ValueError):
            exec(compile(snippet, "snippet.py", "exec"), namespace)  # test code: the lab's snippet
        exec("from torchviz import make_dot", namespace)
        return eval(line, namespace)  # test code: the line the page shows


@pytest.mark.parametrize(("text", "settings"), CASES)
def test_the_line_shown_makes_the_view_shown(text: str, settings: FlagSettings) -> None:
    outcome = run_flags(parse(text), 0.7, settings, view=torchviz_views)
    views = dict(outcome.views)
    for attrs, saved in TORCHVIZ:
        key = f"{attrs},{saved}"
        line = views[f"code:{key}"]
        if f"error:{key}" in views:
            with pytest.raises(RuntimeError, match="second time"):
                run_line(outcome.snippet, line)
            assert "second time" in views[f"error:{key}"]
        else:
            made = run_line(outcome.snippet, line).source  # the view is torchviz's DOT, its
            assert shape(escape_newlines(made)) == shape(views[f"dot:{key}"])  # breaks escaped
    # the plain view has the same backward functions as hograd's drawing of the run
    labels, _ = shape(views["dot:False,False"])
    ops = Counter(n.label for n in outcome.drawing.nodes if n.kind == "op")
    assert {k: v for k, v in labels.items() if not k.startswith('"')} == dict(ops)


def test_freed_saved_tensors_stop_show_saved_but_not_the_plain_view() -> None:
    outcome = run_flags(parse("x**3"), 0.7, FlagSettings(action="again"), view=torchviz_views)
    views = dict(outcome.views)
    assert "dot:False,False" in views and "error:False,True" in views
    # every second call of the lab runs with the default retain_graph and frees what it walked:
    # after d2y, dy's saved tensors are gone too
    freed = run_flags(parse("x**3"), 0.7, FlagSettings(create_graph=True), view=torchviz_views)
    assert "error:False,True" in dict(freed.views)
    # a first call with retain_graph=True that PyTorch then refused (z is unused) ends the
    # run with every saved tensor kept
    settings = FlagSettings(retain_graph=True, unused_input=True)
    kept = run_flags(parse("tanh(x)"), 0.7, settings, view=torchviz_views)
    views = dict(kept.views)
    assert kept.raised and "dot:True,True" in views
    assert views["code:True,True"] == (
        "make_dot((y,), params={'x': x, 'z': z}, show_attrs=True, show_saved=True)"
    )
    assert "result" in views["dot:True,True"]  # TanhBackward0 saved its result


def test_a_run_in_a_fresh_process_is_viewed_too() -> None:
    settings = FlagSettings(True, None, False, False, False, "backward")
    outcome = run_flags(parse("x**3"), 2.0, settings, isolate=run_isolated, view=torchviz_views)
    views = dict(outcome.views)
    assert views["code:False,False"].startswith("make_dot((y, x.grad),")
    made = run_line(outcome.snippet, views["code:False,False"]).source
    assert shape(escape_newlines(made)) == shape(views["dot:False,False"])


@pytest.mark.parametrize(("text", "settings"), CASES[:2])
def test_torchviz_adds_no_warning_of_its_own_to_the_run(text, settings) -> None:
    """The page lists the warnings a run raised; torchviz's use of distutils is not one."""
    plain = run_flags(parse(text), 0.5, settings)
    drawn = run_flags(parse(text), 0.5, settings, view=torchviz_views)
    assert drawn.warnings == plain.warnings
    assert not any("distutils" in w or "Version classes" in w for w in drawn.warnings)
