"""The Newton lab's cached call: the typed function and the settings checked, the race run once
per setting, the picture's grid, and the download, which is :mod:`.compute`'s own source with
the typed function written as ``f`` in PyTorch and the page's settings on the line ``__main__``
reads them from."""

from __future__ import annotations

import inspect

import streamlit as st
import torch

from hograd_core import parse
from hograd_core.applications.common import Code, check, marked_code
from hograd_core.curvature import Grid, grid
from hograd_core.errors import ArgumentError
from hograd_core.language import Function
from hograd_core.language.to_source import python_name, torch_source
from hograd_serving.cached import Caption, with_bar

from . import compute
from .compute import MAX_RADIUS, MAX_STEPS, METHODS, NewtonRace, RaceConfig

__all__ = ["check_config", "script", "torch_function", "why_newton"]

# The lines of compute.py that the download fills in (each must occur once).
_CONFIG = "    config = RaceConfig()\n"
_F_BODY = "    x, y = w[0], w[1]\n    return ((1 - x) ** 2) + (100 * ((y - (x**2)) ** 2))\n"
_DERIVATIVES = "    derivatives_of = derivatives  # or derivatives_func: the same with torch.func\n"
_FUNC = "    derivatives_of = derivatives_func  # torch.func's grad and hessian\n"


def check_config(fn: Function, config: RaceConfig) -> None:
    """Refuse a function of other than two variables, an unknown method or a setting outside
    its range, before any work.

    Raises:
        ArgumentError: not two variables, an unknown method, a setting below its range.
        BudgetError: more steps than ``MAX_STEPS``, a setting above its range.
    """
    if len(fn.variables) != 2:
        raise ArgumentError("newton.two_variables", got=len(fn.variables))
    check("steps", config.steps, 1, MAX_STEPS)
    check("lr", config.lr, 1e-6, 10.0)
    check("damping", config.damping, 0.0, 1e4)
    check("radius", config.radius, 1e-3, MAX_RADIUS)
    check("tol", config.tol, 1e-14, 1e-2)
    for value in config.start:
        check("start", value, -100.0, 100.0)
    if not config.methods or any(m not in METHODS for m in config.methods):
        raise ArgumentError("newton.methods", got=", ".join(config.methods)[:60])


def torch_function(fn: Function):
    """``fn`` as the page runs it: f(w) of a float64 tensor w of shape (2,)."""
    names = fn.variables

    def f(w: torch.Tensor) -> torch.Tensor:
        return fn.torch({names[0]: w[0], names[1]: w[1]})

    return f


def _body(fn: Function) -> str:
    """The two lines of ``f`` in the download: the variables unpacked from w, then ``fn`` as
    one PyTorch expression (a variable called like a name of the file gets another name)."""
    names = {v: python_name(v, {"torch", "w", "f"}) for v in fn.variables}
    if len(set(names.values())) != 2:
        names = dict(zip(fn.variables, ("x", "y"), strict=True))
    first, second = names.values()
    return f"    {first}, {second} = w[0], w[1]\n    return {torch_source(fn, names)}\n"


def script(fn: Function, config: RaceConfig, func: bool = False) -> Code:
    """The download: compute.py as it is, with ``fn`` written as ``f`` and ``config`` where its
    ``__main__`` sets it, and (``func``) the derivatives taken by torch.func."""
    source = inspect.getsource(compute)
    swaps = [(_F_BODY, _body(fn)), (_CONFIG, f"    config = {config!r}\n")]
    for old, new in swaps + ([(_DERIVATIVES, _FUNC)] if func else []):
        assert source.count(old) == 1, f"compute.py no longer has {old.strip()!r}"
        source = source.replace(old, new)
    return marked_code(source)


@st.cache_data(max_entries=32, show_spinner=False)
def why_newton(
    text: str,
    start: tuple,
    steps: int,
    lr: float,
    damping: float,
    radius: float,
    methods: tuple,
    _caption: Caption = lambda done, total: f"{done}/{total}",
) -> tuple[NewtonRace, Grid, Code]:
    """The race, f on a square around its paths (the picture) and the download."""
    fn = parse(text)
    config = RaceConfig(tuple(start), steps, lr, damping, radius, methods=tuple(methods))
    check_config(fn, config)
    f = torch_function(fn)
    race = with_bar(_caption, lambda progress: compute.run(config, progress, f=f))
    center, half = compute.window(race)
    return race, grid(fn, center, half, 81), script(fn, config)
