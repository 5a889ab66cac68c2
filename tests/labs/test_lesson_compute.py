"""The guided lesson's answers, each against an oracle the core did not compute (sympy, plain
PyTorch written out here, NumPy), and the checking of answers (the links: test_lesson_link)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import sympy as sp
import torch

from hograd_core import parse
from hograd_core.flaglab import FlagSettings, run_flags
from hograd_labs.lesson import STEP_COUNT
from hograd_labs.lesson.compute import (
    CHOICE,
    CUBE,
    FLAGS,
    GROWTH,
    GROWTH_KINDS,
    HVP,
    NEWTON,
    NUMBER,
    STEPS,
    VECTOR,
    Answer,
    answer,
    check,
    check_flags,
    step_named,
)
from hograd_ui.i18n import catalogue

x, w1, w2 = sp.symbols("x w1 w2")


@pytest.fixture(scope="module")
def answers() -> dict[str, Answer]:
    return {step.name: answer(step.name) for step in STEPS}


# ---- the steps themselves ------------------------------------------------------------------


def test_six_to_ten_steps_in_the_seeds_order() -> None:
    assert 6 <= len(STEPS) <= 10
    assert len(STEPS) == STEP_COUNT  # what app.py reads on every page without loading this
    assert [s.name for s in STEPS] == [
        "grad",
        "create_graph",
        "second",
        "growth",
        "freed",
        "hvp",
        "used",
    ]
    assert {s.exercise.kind for s in STEPS} == {NUMBER, VECTOR, CHOICE, FLAGS}


def test_every_text_of_every_step_is_in_both_languages() -> None:
    en, zh = catalogue("en"), catalogue("zh")
    for s in STEPS:
        ex = s.exercise
        for key in (s.title, s.text, s.teacher, ex.prompt, ex.hint, ex.explain, *ex.options):
            assert key in en and key in zh, key
    assert step_named("hvp") is STEPS[5]
    with pytest.raises(KeyError):
        step_named("nope")


# ---- every answer against an oracle ----------------------------------------------------------


def test_the_derivatives_of_x_cubed_match_sympy(answers: dict[str, Answer]) -> None:
    text, x0 = CUBE
    f = sp.sympify(text)
    assert answers["grad"].values == pytest.approx((float(sp.diff(f, x).subs(x, x0)),), abs=1e-12)
    assert answers["grad"].values == (12.0,)  # the seed's number
    assert answers["second"].values == pytest.approx((float(sp.diff(f, x, 2).subs(x, x0)),))
    assert answers["second"].values == (12.0,)
    # the traps are what they say: f(2) and the third derivative
    assert answers["grad"].traps[0][0] == (float(f.subs(x, x0)),)
    assert answers["second"].traps[0][0] == (float(sp.diff(f, x, 3)),)


def test_the_hessian_vector_product_matches_sympy(answers: dict[str, Answer]) -> None:
    text, point, vector = HVP
    f = w1**2 * sp.sin(w2)
    at = {w1: point[0], w2: point[1]}
    hessian = np.array(sp.hessian(f, (w1, w2)).subs(at).evalf(), dtype=float)
    gradient = np.array([float(sp.diff(f, v).subs(at)) for v in (w1, w2)])
    np.testing.assert_allclose(answers["hvp"].values, hessian @ np.array(vector), atol=1e-12)
    np.testing.assert_allclose(answers["hvp"].values, (1.0, -1.0), atol=1e-12)  # the seed's
    np.testing.assert_allclose(answers["hvp"].traps[0][0], gradient, atol=1e-12)
    assert parse(text).variables == ("w1", "w2")


def _torch_node_counts(text: str, x0: float, order: int) -> list[int]:
    """grad_fn nodes reachable from f, f', ..., f^(k) for each k, walked here in plain torch."""
    t = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
    outs = [{"tanh(x)": torch.tanh, "sin(x)": torch.sin, "x**3": lambda u: u**3}[text](t)]
    for _ in range(order):
        if outs[-1].grad_fn is None:  # a constant (x³ from order 3): no graph, every next is 0
            outs.append(torch.zeros((), dtype=torch.float64))
        else:
            outs.append(torch.autograd.grad(outs[-1], t, create_graph=True)[0])
    counts = []
    for k in range(order + 1):
        seen, stack = set(), [o.grad_fn for o in outs[: k + 1] if o.grad_fn is not None]
        while stack:
            fn = stack.pop()
            if fn not in seen:
                seen.add(fn)
                stack.extend(nxt for nxt, _ in fn.next_functions if nxt is not None)
        counts.append(len(seen))
    return counts


def test_the_growth_answer_matches_a_count_walked_in_torch(answers: dict[str, Answer]) -> None:
    text, x0, order = GROWTH
    counts = _torch_node_counts(text, x0, order)
    facts = dict(answers["growth"].facts)
    assert facts["nodes"] == ", ".join(str(n) for n in counts)
    assert facts["ratio"] == f"{counts[-1] / counts[-2]:.2f}"
    added = np.diff(counts)  # what each backward pass added
    assert all(b > a for a, b in zip(added, added[1:], strict=False))  # more every pass
    assert GROWTH_KINDS[int(answers["growth"].values[0])] == "growing"
    assert answers["growth"].values == (float(GROWTH_KINDS.index("growing")),)
    ratios = [b / a for a, b in zip(counts[3:], counts[4:], strict=False)]
    assert all(2.25 <= r <= 2.5 for r in ratios)  # "a factor of about 2.3 to 2.5"
    # for contrast (the teacher's note): sin adds 2 or 3 nodes per order, x³ stays at 11
    assert set(np.diff(_torch_node_counts("sin(x)", x0, order))) <= {2, 3}
    cube = _torch_node_counts("x**3", x0, order)
    assert cube[3:] == [11] * (order - 2) and cube[2] < 11


def test_newton_reaches_the_quadratics_minimum_in_one_step(answers: dict[str, Answer]) -> None:
    """sympy: one step θ − H⁻¹∇f from (2, 1) lands where ∇f = 0; NumPy: gradient descent with
    the page's learning rate has not arrived after its 100 steps (the explanation says so)."""
    y = sp.Symbol("y")
    f = sp.sympify(NEWTON.replace("^", "**"), locals={"x": x, "y": y})
    grad = sp.Matrix([sp.diff(f, v) for v in (x, y)])
    hess = sp.hessian(f, (x, y))
    start = {x: 2, y: 1}
    step = sp.Matrix([2, 1]) - hess.subs(start).inv() * grad.subs(start)
    assert list(grad.subs({x: step[0], y: step[1]})) == [0, 0]
    assert sorted(hess.eigenvals()) == [1, 10]
    assert answers["used"].values == (0.0,)  # option 0: "1 step"
    gradient = sp.lambdify((x, y), grad, "numpy")
    theta = np.array([2.0, 1.0])
    for _ in range(100):
        theta = theta - 0.15 * np.asarray(gradient(*theta), dtype=float).ravel()
    assert np.linalg.norm(np.asarray(gradient(*theta), dtype=float)) > 1e-8
    assert dict(answers["used"].facts) == {"steps": "100"}


# ---- the flag-lab goals against plain PyTorch --------------------------------------------------


def _plain_torch_error(s: FlagSettings) -> str:
    """What the second call of the lesson's run raises, written out here in plain torch."""
    t = torch.tensor(CUBE[1], dtype=torch.float64, requires_grad=True)
    y = t**3
    with warnings.catch_warnings():  # .backward(create_graph=True) warns of a reference cycle
        warnings.simplefilter("ignore")
        return _second_call(s, t, y)


def _second_call(s: FlagSettings, t: torch.Tensor, y: torch.Tensor) -> str:
    try:
        if s.action == "backward":
            y.backward(create_graph=s.create_graph, retain_graph=s.retain_graph)
            y.backward(create_graph=s.create_graph, retain_graph=s.retain_graph)
        else:
            dy = torch.autograd.grad(
                y, t, create_graph=s.create_graph, retain_graph=s.retain_graph
            )[0]
            torch.autograd.grad(dy if s.action == "next" else y, t)
    except RuntimeError as err:
        return str(err)
    return ""


SETTINGS = [
    FlagSettings(create_graph=cg, retain_graph=rg, action=action)
    for cg in (False, True)
    for rg in (None, True, False)
    for action in ("next", "again", "backward")
]


@pytest.mark.parametrize("name", ["create_graph", "freed"])
def test_a_flag_goal_is_met_exactly_when_plain_torch_raises_it(name: str) -> None:
    step = step_named(name)
    wanted = {
        "create_graph": "does not require grad and does not have a grad_fn",
        "freed": "Trying to backward through the graph a second time",
    }[name]
    met = []
    for s in SETTINGS:
        error = _plain_torch_error(s)
        verdict = check_flags(step, run_flags(parse(CUBE[0]), CUBE[1], s))
        assert verdict.correct == (wanted in error), s
        if verdict.correct:
            met.append(s)
        else:
            assert verdict.key == ("lesson.check.other_error" if error else "lesson.check.ran")
    assert met, "no setting reaches the goal"
    solution = answer(name).solution
    assert solution in met
    start = step.exercise.start
    assert not check_flags(step, run_flags(parse(CUBE[0]), CUBE[1], start)).correct


# ---- checking answers ---------------------------------------------------------------------------


def test_a_number_is_right_within_its_tolerance(answers: dict[str, Answer]) -> None:
    step, truth = step_named("grad"), answers["grad"]
    tol = step.exercise.tolerance
    assert check(step, (12.0,), truth).correct
    assert check(step, (12.0 + 0.9 * tol,), truth).correct
    assert not check(step, (12.0 + 1.1 * tol,), truth).correct
    assert check(step, (13.0,), truth).key == "lesson.check.high"
    assert check(step, (-12.0,), truth).key == "lesson.check.low"
    trap = check(step, (8.0,), truth)
    assert not trap.correct
    assert (trap.key, dict(trap.params)) == ("lesson.trap.value", {"value": "8"})
    assert check(step, (None,), truth).key == "lesson.check.empty"
    for bad in (math.nan, math.inf, -math.inf):
        assert check(step, (bad,), truth).key == "lesson.check.not_finite"
    assert check(step_named("second"), (6.0,), answers["second"]).key == "lesson.trap.third"


def test_a_vector_names_the_component_that_is_off(answers: dict[str, Answer]) -> None:
    step, truth = step_named("hvp"), answers["hvp"]
    assert check(step, (1.0, -1.0), truth).correct
    assert check(step, (1.004, -0.996), truth).correct
    off = check(step, (1.0, 1.0), truth)
    assert (off.key, dict(off.params)) == ("lesson.check.component", {"index": "2"})
    assert check(step, (2.0, 0.0), truth).key == "lesson.trap.gradient"
    assert check(step, (0.5, 1.0), truth).key == "lesson.trap.vector"
    assert check(step, (1.0, None), truth).key == "lesson.check.empty"


def test_a_choice_is_right_only_for_the_computed_option(answers: dict[str, Answer]) -> None:
    for name in ("growth", "used"):
        step, truth = step_named(name), answers[name]
        right = int(truth.values[0])
        for option in range(len(step.exercise.options)):
            verdict = check(step, option, truth)
            assert verdict.correct == (option == right)
            assert verdict.key == (
                "lesson.check.right" if option == right else "lesson.check.wrong_choice"
            )
        assert check(step, None, truth).key == "lesson.check.empty"
