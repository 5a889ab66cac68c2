"""The code the flag lab shows is the source of the function that ran (issue 37).

A classic case's script is the body of its function in ``hograd_core.flaglab.gallery``
(``inspect.getsource``), and a flag-lab call the body of its function in
``hograd_core.flaglab.calls`` with the settings filled in. Oracle: the function itself, called
the ordinary way by Python (not by the lab's step runner), prints what the page reports.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import itertools
import textwrap
import warnings

import pytest
import torch

from hograd_core import parse
from hograd_core.flaglab import calls, gallery
from hograd_core.flaglab.cases import CASES, run_case
from hograd_core.flaglab.flags import ACTIONS, FlagSettings, run_flags
from hograd_core.flaglab.source import filled

ALL = [(case, variant) for case, spec in CASES.items() for variant in spec.variants]


def called(fn, *args, **kwargs) -> tuple[list[str], str]:
    """Call ``fn``: what it printed, and "Type: message" if it raised."""
    out = io.StringIO()
    error = ""
    with warnings.catch_warnings(), contextlib.redirect_stdout(out):
        warnings.simplefilter("ignore")
        try:
            fn(*args, **kwargs)
        except (RuntimeError, ValueError, TypeError) as err:
            error = f"{type(err).__name__}: {err}"
    return out.getvalue().splitlines(), error


def source_body(fn) -> str:
    """The function's source without its def line, read here independently of the lab."""
    lines = inspect.getsource(fn).splitlines()
    return textwrap.dedent("\n".join(lines[1:])).strip("\n") + "\n"


@pytest.mark.parametrize(("case", "variant"), ALL)
def test_a_case_shows_the_source_of_the_function_that_ran(case: str, variant: str) -> None:
    spec = CASES[case].variants[variant]
    fn = spec.script
    assert fn is getattr(gallery, f"{case}_{variant}")  # one function per variant, named so
    outcome = run_case(case, variant)
    assert outcome.snippet == source_body(fn)  # the code shown is the function's source
    printed, error = called(fn)  # the function, called as Python calls it
    assert printed == [line for step in outcome.steps for line in step.output]
    assert error == (f"{outcome.steps[-1].error_type}: {outcome.error}" if outcome.raised else "")


def test_every_gallery_function_is_a_variant() -> None:
    scripts = {CASES[c].variants[v].script for c, v in ALL}
    functions = {f for _, f in inspect.getmembers(gallery, inspect.isfunction)}
    assert functions == scripts


def _leaves(unused: bool) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    z = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    return x, z, x**3


SETTINGS = [
    FlagSettings(cg, rg, au, mg, z, action)
    for cg, rg, au, mg, z, action in itertools.product(
        (False, True), (None, True, False), (False, True), (False, True), (False, True), ACTIONS
    )
    if action != "backward" or not (au or mg)
]


@pytest.mark.parametrize("s", SETTINGS, ids=str)
def test_a_flag_run_shows_its_calls_with_the_settings_filled_in(s: FlagSettings) -> None:
    """The two calls shown are the bodies of the functions in calls.py, filled in; calling
    those functions with the same settings prints what the run reported."""
    outcome = run_flags(parse("x**3"), 2.0, s)
    x, z, y = _leaves(s.unused_input)
    wrt = (x, z) if s.unused_input else (x,)
    if s.action == "backward":
        first = calls.backward_of_y_with_z if s.unused_input else calls.backward_of_y
        kwargs = {"create_graph": s.create_graph, "retain_graph": s.retain_graph}
    else:
        first = calls.grad_of_y_and_z if s.unused_input else calls.grad_of_y
        kwargs = {
            "create_graph": s.create_graph,
            "retain_graph": s.retain_graph,
            "allow_unused": True if s.allow_unused else None,
            "materialize_grads": s.materialize_grads,
        }
    assert outcome.steps[1].code == filled(first, **kwargs)
    # the shown line passes exactly the settings that differ from the signature's defaults
    defaults = {k: p.default for k, p in inspect.signature(first).parameters.items()}
    for name, value in kwargs.items():
        assert (f"{name}={value}" in outcome.steps[1].code) == (value != defaults[name])
    # the function, called: its printout is the first step's
    printed, error = called(first, y, *wrt, **kwargs)
    assert printed == list(outcome.steps[1].output)
    assert error == (
        f"{outcome.steps[1].error_type}: {outcome.steps[1].error}"
        if outcome.steps[1].error_type
        else ""
    )
    if error or len(outcome.steps) < 3:
        return
    if s.action == "backward":
        second, args = first, (y, *wrt)
    elif s.action == "next":
        # dy as the first call made it: the real function returns nothing, so made again here
        dy = torch.autograd.grad(
            x**3, x, create_graph=s.create_graph, materialize_grads=s.materialize_grads
        )[0]
        second, args, kwargs = calls.next_derivative, (dy, x), {}
    else:
        second, args, kwargs = calls.grad_again, (y, x), {}
    assert outcome.steps[2].code == filled(second, **kwargs)
    printed, error = called(second, *args, **kwargs)
    assert printed == list(outcome.steps[2].output)
    assert error == (
        f"{outcome.steps[2].error_type}: {outcome.steps[2].error}"
        if outcome.steps[2].error_type
        else ""
    )


def test_the_variable_keeps_the_learner_s_name_in_the_calls() -> None:
    outcome = run_flags(parse("t**3"), 2.0, FlagSettings(create_graph=True, action="backward"))
    assert outcome.steps[1].code == "y.backward(create_graph=True)\nprint(t.grad)"
    assert filled(calls.backward_of_y, {"x": "t"}, create_graph=True) == outcome.steps[1].code
