"""The classic cases of the flag lab: the trap, then its fixes, each a few steps of real calls.

Every step pairs the code a learner reads with the calls that run it (on a namespace of
tensors named as in the code). The snippet is the steps' code joined by blank lines; the tests
run every snippet on its own and check it prints, raises and warns exactly as reported here.
Explanations and fixes are chosen by whether the variant raised (``*_error``) or ran
(``*_ok``), so the page stays truthful if a future PyTorch changes behaviour; the tests pin
today's behaviour.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import torch

from ..errors import ArgumentError
from ..graph_trace import Root
from .case_drawing import drawing as trace_drawing
from .case_drawing import printed_roots, raised_at, value, watch
from .record import (
    FlagOutcome,
    Isolate,
    Printed,
    StepReport,
    distinct,
    run_step,
)

__all__ = ["CASES", "Case", "Step", "Variant", "run_case"]

Namespace = dict[str, object]  # the snippet's variables, by name


@dataclass(frozen=True)
class Step:
    """Lines of a snippet and the calls that do what they say.

    ``blame`` names the tensor to mark when the step raises without entering the graph
    (``dz * 2`` on a None); a refused ``torch.autograd.grad(t, ...)`` call marks ``t`` by
    itself (see :func:`_refused`).
    """

    code: str
    run: Callable[[Namespace], Printed]
    blame: str = ""


@dataclass(frozen=True)
class Variant:
    steps: tuple[Step, ...]
    explain_ok: tuple[str, ...] = ()
    explain_error: tuple[str, ...] = ()
    fix_ok: tuple[str, ...] = ()
    fix_error: tuple[str, ...] = ()


@dataclass(frozen=True)
class Case:
    variants: dict[str, Variant]
    isolated: bool = False  # run in a fresh process: process-wide torch state or warn-once


# ----------------------------------------------------------------------------------------------
# Building blocks: each returns a Step whose code and calls match line for line


def _leaf(value: float) -> torch.Tensor:
    return torch.tensor(value, dtype=torch.float64, requires_grad=True)


def _get(ns: Namespace, name: str) -> object:
    """``name`` or ``name.attribute`` (``dy.requires_grad``, ``x.grad``) from the namespace."""
    base, _, attr = name.partition(".")
    return getattr(ns[base], attr) if attr else ns[base]


def _shown(ns: Namespace, names: tuple[str, ...]) -> Printed:
    return tuple((name, _get(ns, name)) for name in names)


def _setup(value: str, body: str = "", build: Callable[[Namespace], None] | None = None) -> Step:
    """import torch, the leaf x at ``value``, then ``body`` (built by ``build``)."""

    def run(ns: Namespace) -> Printed:
        ns["x"] = _leaf(float(value))
        if build is not None:
            build(ns)
        return ()

    leaf = f"x = torch.tensor({value}, dtype=torch.float64, requires_grad=True)"
    return Step(f"import torch\n\n{leaf}" + (f"\n{body}" if body else ""), run)


def _cube(ns: Namespace) -> None:
    ns["y"] = ns["x"] ** 3


def _cube_and_z(ns: Namespace) -> None:
    ns["z"] = _leaf(1.0)
    ns["y"] = ns["x"] ** 3


def _sin_squared(ns: Namespace) -> None:
    ns["a"] = torch.sin(ns["x"])
    ns["y"] = ns["a"] ** 2


def _function(f: Callable[[torch.Tensor], torch.Tensor]) -> Callable[[Namespace], None]:
    def build(ns: Namespace) -> None:
        ns["y"] = f(ns["x"])

    return build


def _dy(show: tuple[str, ...] = ("dy",), **kwargs: bool) -> Step:
    """dy = torch.autograd.grad(y, x, **kwargs)[0], then print(*show)."""

    def run(ns: Namespace) -> Printed:
        ns["dy"] = torch.autograd.grad(ns["y"], ns["x"], **kwargs)[0]
        return _shown(ns, show)

    args = "".join(f", {k}={v!r}" for k, v in kwargs.items())
    return Step(f"dy = torch.autograd.grad(y, x{args})[0]\nprint({', '.join(show)})", run)


def _dy_dz(**kwargs: bool) -> Step:
    def run(ns: Namespace) -> Printed:
        ns["dy"], ns["dz"] = torch.autograd.grad(ns["y"], (ns["x"], ns["z"]), **kwargs)
        return _shown(ns, ("dy", "dz"))

    args = "".join(f", {k}={v!r}" for k, v in kwargs.items())
    return Step(f"dy, dz = torch.autograd.grad(y, (x, z){args})\nprint(dy, dz)", run)


def _d2y(ns: Namespace) -> Printed:
    ns["d2y"] = torch.autograd.grad(ns["dy"], ns["x"])[0]
    return _shown(ns, ("d2y",))


def _again(ns: Namespace) -> Printed:
    ns["dy_again"] = torch.autograd.grad(ns["y"], ns["x"])[0]
    return _shown(ns, ("dy_again",))


def _double_dz(ns: Namespace) -> Printed:
    return (("dz * 2", ns["dz"] * 2),)  # TypeError when dz is None


def _zero_if_constant(ns: Namespace) -> Printed:
    if ns["dy"].requires_grad:
        ns["d2y"] = torch.autograd.grad(ns["dy"], ns["x"])[0]
    else:
        ns["d2y"] = torch.zeros_like(ns["x"])
    return _shown(ns, ("d2y",))


def _backward(reset: bool = False) -> Step:
    def run(ns: Namespace) -> Printed:
        if reset:
            ns["x"].grad = None
        ns["y"].backward(create_graph=True)
        return _shown(ns, ("x.grad",))

    code = "y.backward(create_graph=True)\nprint(x.grad)"
    return Step(("x.grad = None\n" if reset else "") + code, run)


def _change_a(in_place: bool) -> Step:
    def run(ns: Namespace) -> Printed:
        if in_place:
            ns["a"].mul_(2)
        else:
            ns["a"] = ns["a"] * 2
        return _d2y(ns)

    change = "a.mul_(2)" if in_place else "a = a * 2"
    return Step(f"{change}\nd2y = torch.autograd.grad(dy, x)[0]\nprint(d2y)", run)


def _sqrt(x: torch.Tensor) -> torch.Tensor:
    return torch.sqrt(x**2)


def _where_log(x: torch.Tensor) -> torch.Tensor:
    return torch.where(x > 0, torch.log(x), 0.0)


def _safe_log(x: torch.Tensor) -> torch.Tensor:
    safe = torch.where(x > 0, x, 1.0)
    return torch.where(x > 0, torch.log(safe), 0.0)


_FORWARD = {
    _sqrt: "y = torch.sqrt(x**2)",
    _where_log: "y = torch.where(x > 0, torch.log(x), 0.0)",
    _safe_log: "safe = torch.where(x > 0, x, 1.0)\ny = torch.where(x > 0, torch.log(safe), 0.0)",
}


def _nan(f: Callable[[torch.Tensor], torch.Tensor], anomaly: bool) -> Step:
    """The gradient of ``f`` at x, plain (printing y and dy) or inside detect_anomaly."""
    grad = "dy = torch.autograd.grad(y, x)[0]"
    if not anomaly:

        def plain(ns: Namespace) -> Printed:
            ns["y"] = f(ns["x"])
            ns["dy"] = torch.autograd.grad(ns["y"], ns["x"])[0]
            return _shown(ns, ("y", "dy"))

        return Step(f"{_FORWARD[f]}\n{grad}\nprint(y, dy)", plain)

    def checked(ns: Namespace) -> Printed:
        with torch.autograd.detect_anomaly():
            ns["y"] = f(ns["x"])
            ns["dy"] = torch.autograd.grad(ns["y"], ns["x"])[0]
        return _shown(ns, ("y", "dy") if f is _safe_log else ("dy",))

    body = "\n".join(f"    {line}" for line in [*_FORWARD[f].splitlines(), grad])
    shown = "print(y, dy)" if f is _safe_log else "print(dy)"
    return Step(f"with torch.autograd.detect_anomaly():\n{body}\n{shown}", checked)


def _keys(kind: str, *names: str) -> tuple[str, ...]:
    return tuple(f"graph.flag.{kind}.{name}" for name in names)


E, F = "explain", "fix"
_CUBE = _setup("2.0", "y = x**3", _cube)
_Z = _setup(
    "2.0", "z = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)\ny = x**3", _cube_and_z
)  # noqa: E501
_D2Y = Step("d2y = torch.autograd.grad(dy, x)[0]\nprint(d2y)", _d2y)
_AGAIN = Step("dy_again = torch.autograd.grad(y, x)[0]\nprint(dy_again)", _again)
_TWICE = Step("print(dz * 2)", _double_dz, blame="dz")
_REQ = ("dy", "dy.requires_grad")


def _linear(x: torch.Tensor) -> torch.Tensor:
    return 2 * x


def _clamp(x: torch.Tensor) -> torch.Tensor:
    return torch.clamp(x, min=0.0)


_TWO_X = _setup("2.0", "y = 2 * x", _function(_linear))
_ZERO_IF_CONSTANT = Step(
    "if dy.requires_grad:\n    d2y = torch.autograd.grad(dy, x)[0]\nelse:\n"
    "    d2y = torch.zeros_like(x)\nprint(d2y)",
    _zero_if_constant,
)

CASES: dict[str, Case] = {
    # Second derivative without create_graph: dy is a tensor with no grad_fn, on no graph.
    "no_create_graph": Case({
        "off": Variant(
            (_CUBE, _dy(), _D2Y),
            explain_error=_keys(E, "no_create_graph"), fix_error=_keys(F, "create_graph"),
            explain_ok=_keys(E, "next_ok"),
        ),
        "on": Variant(
            (_CUBE, _dy(create_graph=True), _D2Y),
            explain_ok=_keys(E, "next_ok"), explain_error=_keys(E, "no_create_graph"),
        ),
    }),
    # The graph's saved tensors are freed by the first call unless retained.
    "freed_graph": Case({
        "default": Variant(
            (_CUBE, _dy(), _AGAIN),
            explain_error=_keys(E, "freed_default"), fix_error=_keys(F, "retain"),
            explain_ok=_keys(E, "retained"),
        ),
        "retain": Variant(
            (_CUBE, _dy(retain_graph=True), _AGAIN),
            explain_ok=_keys(E, "retained"), explain_error=_keys(E, "freed_explicit"),
        ),
    }),
    # retain_graph=None means "the same as create_graph".
    "retain_default": Case({
        "create_graph": Variant(
            (_CUBE, _dy(create_graph=True), _AGAIN),
            explain_ok=_keys(E, "retain_default"), explain_error=_keys(E, "freed_default"),
        ),
        "no_retain": Variant(
            (_CUBE, _dy(create_graph=True, retain_graph=False), _AGAIN),
            explain_error=_keys(E, "freed_explicit"), fix_error=_keys(F, "retain"),
            explain_ok=_keys(E, "retained"),
        ),
        "no_retain_next": Variant(
            (_setup("0.7", "y = torch.tanh(x)", _function(torch.tanh)),
             _dy(create_graph=True, retain_graph=False), _D2Y),
            explain_error=_keys(E, "freed_forward"), fix_error=_keys(F, "retain_forward"),
            explain_ok=_keys(E, "next_ok"),
        ),
    }),
    # An input the output does not use: an error, None, or an exact zero.
    "unused_input": Case({
        "plain": Variant(
            (_Z, _dy_dz()),
            explain_error=_keys(E, "unused_error"), fix_error=_keys(F, "unused"),
            explain_ok=_keys(E, "unused_none"),
        ),
        "allow_unused": Variant(
            (_Z, _dy_dz(allow_unused=True), _TWICE),
            explain_error=_keys(E, "unused_none", "none_arith"), fix_error=_keys(F, "unused"),
            explain_ok=_keys(E, "unused_none"),
        ),
        "materialize": Variant(
            (_Z, _dy_dz(materialize_grads=True), _TWICE),
            explain_ok=_keys(E, "unused_zero"), explain_error=_keys(E, "unused_error"),
        ),
    }),
    # dy has no grad_fn when its backward used no tensor that requires grad (2*x), so the next
    # grad raises; the zero "fix" is right only with create_graph=True (last variant: 0, not 12).
    "constant_trap": Case({
        "linear": Variant(
            (_TWO_X, _dy(_REQ, create_graph=True), _D2Y),
            explain_error=_keys(E, "constant_trap"), fix_error=_keys(F, "constant"),
            explain_ok=_keys(E, "next_ok"),
        ),
        "relu": Variant(
            (_setup("1.5", "y = torch.relu(x)", _function(torch.relu)),
             _dy(_REQ, create_graph=True), _D2Y),
            explain_ok=_keys(E, "relu_ok"), explain_error=_keys(E, "constant_trap"),
            fix_error=_keys(F, "constant"),
        ),
        "clamp": Variant(
            (_setup("1.5", "y = torch.clamp(x, min=0.0)", _function(_clamp)),
             _dy(_REQ, create_graph=True), _D2Y),
            explain_error=_keys(E, "relu_clamp"), fix_error=_keys(F, "constant"),
            explain_ok=_keys(E, "relu_ok"),
        ),
        "fixed": Variant(
            (_TWO_X, _dy(_REQ, create_graph=True), _ZERO_IF_CONSTANT),
            explain_ok=_keys(E, "fixed_zero"), explain_error=_keys(E, "constant_trap"),
        ),
        "forgot": Variant(
            (_CUBE, _dy(_REQ), _ZERO_IF_CONSTANT),
            explain_ok=_keys(E, "fixed_forgot"), fix_ok=_keys(F, "create_graph"),
            explain_error=_keys(E, "no_create_graph"), fix_error=_keys(F, "create_graph"),
        ),
    }),
    # .backward(create_graph=True): results land in x.grad, add up, and make a reference cycle.
    "backward_accumulates": Case({
        "twice": Variant(
            (_CUBE, _backward(), _backward()),
            explain_ok=_keys(E, "accumulates", "cycle"), fix_ok=_keys(F, "zero_grad", "use_grad"),
            explain_error=_keys(E, "freed_default"),
        ),
        "reset": Variant(
            (_CUBE, _backward(), _backward(reset=True)),
            explain_ok=_keys(E, "reset", "cycle"), fix_ok=_keys(F, "use_grad"),
            explain_error=_keys(E, "freed_default"),
        ),
        "grad": Variant(
            (_CUBE, _dy(("dy", "x.grad"), create_graph=True),
             _dy(("dy", "x.grad"), create_graph=True)),
            explain_ok=_keys(E, "grad_returns"), explain_error=_keys(E, "freed_default"),
        ),
    }, isolated=True),  # PyTorch gives the reference-cycle warning once per process
    # Changing a tensor in place after a function saved it for backward.
    "inplace": Case({
        "inplace": Variant(
            (_setup("0.5", "a = torch.sin(x)\ny = a**2", _sin_squared), _dy(create_graph=True),
             _change_a(in_place=True)),
            explain_error=_keys(E, "inplace"), fix_error=_keys(F, "inplace"),
            explain_ok=_keys(E, "out_of_place"),
        ),
        "out_of_place": Variant(
            (_setup("0.5", "a = torch.sin(x)\ny = a**2", _sin_squared), _dy(create_graph=True),
             _change_a(in_place=False)),
            explain_ok=_keys(E, "out_of_place"), explain_error=_keys(E, "inplace"),
        ),
    }),
    # NaN gradients: silent without anomaly detection, located with it.
    "nan_anomaly": Case({
        "sqrt": Variant(
            (_setup("0.0"), _nan(_sqrt, anomaly=False), _nan(_sqrt, anomaly=True)),
            explain_error=_keys(E, "nan_silent", "anomaly"), fix_error=_keys(F, "nan_sqrt"),
            explain_ok=_keys(E, "nan_silent"),
        ),
        "log": Variant(
            (_setup("0.0"), _nan(_where_log, anomaly=False), _nan(_where_log, anomaly=True)),
            explain_error=_keys(E, "nan_silent", "anomaly"), fix_error=_keys(F, "nan_where"),
            explain_ok=_keys(E, "nan_silent"),
        ),
        "log_fixed": Variant(
            (_setup("0.0"), _nan(_safe_log, anomaly=True)),
            explain_ok=_keys(E, "double_where"), explain_error=_keys(E, "anomaly"),
        ),
    }, isolated=True),  # detect_anomaly is a process-wide switch
}  # fmt: skip


# ----------------------------------------------------------------------------------------------
# Running a case


def run_case(case: str, variant: str | None = None, isolate: Isolate | None = None) -> FlagOutcome:
    """Run one classic case of the flag lab.

    Args:
        case: a name from :data:`CASES`.
        variant: one of the case's variants (the first, the trap itself, when omitted).
        isolate: runs an isolated case (``detect_anomaly`` switches the whole process) in a
            fresh process; by default it runs here.

    Returns:
        A :class:`hograd_core.flaglab.flags.FlagOutcome`.

    Raises:
        ArgumentError: unknown case or variant.

    Example:
        >>> run_case("freed_graph").error[:44]
        'Trying to backward through the graph a secon'
    """
    if case not in CASES:
        raise ArgumentError("graph.flag.case", known=", ".join(CASES), got=case)
    variant = variant or next(iter(CASES[case].variants))
    if variant not in CASES[case].variants:
        known = ", ".join(CASES[case].variants)
        raise ArgumentError("graph.flag.variant", known=known, got=variant)
    if isolate is not None and CASES[case].isolated:
        return isolate({"kind": "case", "case": case, "variant": variant})
    return run_steps(case, variant)


def run_steps(case: str, variant: str) -> FlagOutcome:
    """Run a variant's steps in this process, on a fresh namespace, warnings recorded.

    The outcome's ``drawing`` is the graph of the tensors the run printed, traced after its
    last step as the flag lab traces its own runs: step k's results in the colour of pass k
    (``y`` always in the forward pass's), freed saved tensors greyed, and the node where the
    run raised marked (the backward function PyTorch entered last, or the refused tensor).
    """
    spec = CASES[case].variants[variant]
    namespace: Namespace = {}
    steps: list[StepReport] = []
    roots: list[Root] = []
    fired: list[object] = []  # backward functions the running step entered, in order
    line = 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for k, step in enumerate(spec.steps):
            fired.clear()
            handles = watch(fired, namespace)
            steps.append(run_step(step.code, line, lambda step=step: step.run(namespace)))
            for handle in handles:
                handle.remove()
            if k == 0 and torch.is_tensor(namespace.get("y")):
                roots.append((0, "y", namespace["y"], value(namespace["y"])))
            else:
                roots += printed_roots(k, steps[-1], namespace)
            line += step.code.count("\n") + 2  # a blank line between steps
            if steps[-1].error_type:
                break
        y = namespace.get("y")
        if torch.is_tensor(y) and all(obj is not y for _, _, obj, _ in roots):
            roots.append((0, "y", y, value(y)))  # made by the step that raised
        failed = steps[-1].error_type != ""
        last = spec.steps[len(steps) - 1]
        where = raised_at(last.code, last.blame, steps[-1], fired, y) if failed else None
        drawing = trace_drawing(roots, namespace, where)
    found = tuple(_first_sentence(w) for w in distinct(caught))
    raised = bool(steps[-1].error_type)
    explain = spec.explain_error if raised else spec.explain_ok
    fixes = spec.fix_error if raised else spec.fix_ok
    snippet = "\n\n".join(step.code for step in spec.steps) + "\n"
    return FlagOutcome(case, variant, snippet, tuple(steps), found, explain, fixes, drawing=drawing)


def _first_sentence(message: str) -> str:
    """detect_anomaly's warning without its traceback, which here would show hograd's frames.

    (Run as a script, the snippet's own warning shows the line of its forward pass.)
    """
    head = "Error detected in "
    return message.split(". Traceback", 1)[0] + "." if message.startswith(head) else message
