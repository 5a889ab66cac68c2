"""The guided lesson: its steps in order, each exercise, its answer and how an answer is checked.

The steps follow one thread: the first derivative of x³, why ``create_graph`` is needed to go
on, the second derivative, how the graph grows with the order, what keeping a graph costs
and when PyTorch frees it, the Hessian-vector product without the Hessian, and Newton's method
as one place where all this is used. Every answer is computed here by the same core functions
the labs use (:func:`~hograd_core.derivatives`, :func:`~hograd_core.graph_lab`,
:func:`~hograd_core.hvp`, the flag lab, the Newton race), never typed in; the tests
(tests/labs/test_lesson_compute.py) check each against sympy or a PyTorch computation written
out on its own. Pure: torch, numpy and the kernel, no Streamlit.

Texts are translation keys (``lesson.*`` in this lab's ``en.toml`` and ``zh.toml``), spelled
out whole so the locale tests find them. The progress a link carries is read by
hograd_ui/parts/lesson_link.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

import hograd_core as core  # each computing module loads when an answer first needs it
from hograd_core.flaglab.settings import FlagSettings
from hograd_core.hvp_examples import quadratic
from hograd_core.language import parse

if TYPE_CHECKING:
    from hograd_core.flaglab import FlagOutcome

__all__ = [
    "CUBE",
    "GROWTH",
    "HVP",
    "STEPS",
    "Answer",
    "Exercise",
    "Step",
    "Verdict",
    "answer",
    "check",
    "check_flags",
    "step_named",
]

# ---- the examples every step uses ----------------------------------------------------------

#: f = x³ at x = 2: f' = 3x² = 12 and f'' = 6x = 12 there.
CUBE = ("x**3", 2.0)
#: tanh at 0.5, built to order 6 (the graph lab's top order), and the two it is compared with.
GROWTH = ("tanh(x)", 0.5, 6)
GROWTH_CHOICES = ("tanh(x)", "sin(x)", "x**3")
#: f = w1²·sin(w2) at (1, π/2) along v = (0.5, 1): ∇f = (2, 0), Hv = (1, −1).
HVP = ("w1**2*sin(w2)", (1.0, math.pi / 2), (0.5, 1.0))
#: the quadratic with condition number 10 from the "why" page's Newton race, its preset start
#: and steps there (hograd_labs/newton/presets.py; a test keeps the two in step)
NEWTON, NEWTON_START, NEWTON_STEPS = quadratic(10), (2.0, 1.0), 100

# ---- the data ----------------------------------------------------------------------------

#: exercise kinds: one number, a vector of numbers, one of several options, a flag-lab goal
NUMBER, VECTOR, CHOICE, FLAGS = "number", "vector", "choice", "flags"
#: flag-lab goals: what the run must end in
NO_CREATE_GRAPH, SECOND_TIME = "no_create_graph", "second_time"


@dataclass(frozen=True)
class Exercise:
    """What the student is asked, and how close counts.

    Attributes:
        kind: NUMBER, VECTOR, CHOICE or FLAGS.
        prompt, hint, explain: translation keys.
        tolerance: for numbers, the largest accepted |answer − truth| in each component.
        options: for CHOICE, the option labels (translation keys), in the order shown.
        goal: for FLAGS, NO_CREATE_GRAPH or SECOND_TIME.
        start: for FLAGS, the settings the lesson's toggles start at (a run that works).
    """

    kind: str
    prompt: str
    hint: str
    explain: str
    tolerance: float = 0.0
    options: tuple[str, ...] = ()
    goal: str = ""
    start: FlagSettings | None = None


@dataclass(frozen=True)
class Step:
    """One step: a name (used in widget keys), its texts, the lab view it shows, its exercise.

    ``view`` is "curves" (f and its derivatives, to ``order``), "flags" (the flag lab on x³),
    "growth" (the graph's size by order), "hvp" (the contour picture of ∇f, v and Hv) or
    "newton" (the Newton race of the "why" page).
    """

    name: str
    title: str
    text: str
    teacher: str
    view: str
    exercise: Exercise
    order: int = 0


STEPS: tuple[Step, ...] = (
    Step(
        "grad",
        "lesson.grad.title",
        "lesson.grad.text",
        "lesson.grad.teacher",
        "curves",
        Exercise(
            NUMBER, "lesson.grad.prompt", "lesson.grad.hint", "lesson.grad.explain", tolerance=0.01
        ),
        order=1,
    ),
    Step(
        "create_graph",
        "lesson.create_graph.title",
        "lesson.create_graph.text",
        "lesson.create_graph.teacher",
        "flags",
        Exercise(
            FLAGS,
            "lesson.create_graph.prompt",
            "lesson.create_graph.hint",
            "lesson.create_graph.explain",
            goal=NO_CREATE_GRAPH,
            start=FlagSettings(create_graph=True, action="next"),
        ),
    ),
    Step(
        "second",
        "lesson.second.title",
        "lesson.second.text",
        "lesson.second.teacher",
        "curves",
        Exercise(
            NUMBER,
            "lesson.second.prompt",
            "lesson.second.hint",
            "lesson.second.explain",
            tolerance=0.01,
        ),
        order=3,
    ),
    Step(
        "growth",
        "lesson.growth.title",
        "lesson.growth.text",
        "lesson.growth.teacher",
        "growth",
        Exercise(
            CHOICE,
            "lesson.growth.prompt",
            "lesson.growth.hint",
            "lesson.growth.explain",
            options=(
                "lesson.growth.opt.stopped",
                "lesson.growth.opt.steady",
                "lesson.growth.opt.growing",
            ),
        ),
    ),
    Step(
        "freed",
        "lesson.freed.title",
        "lesson.freed.text",
        "lesson.freed.teacher",
        "flags",
        Exercise(
            FLAGS,
            "lesson.freed.prompt",
            "lesson.freed.hint",
            "lesson.freed.explain",
            goal=SECOND_TIME,
            start=FlagSettings(create_graph=True, action="next"),
        ),
    ),
    Step(
        "hvp",
        "lesson.hvp.title",
        "lesson.hvp.text",
        "lesson.hvp.teacher",
        "hvp",
        Exercise(
            VECTOR, "lesson.hvp.prompt", "lesson.hvp.hint", "lesson.hvp.explain", tolerance=0.01
        ),
    ),
    Step(
        "used",
        "lesson.used.title",
        "lesson.used.text",
        "lesson.used.teacher",
        "newton",
        Exercise(
            CHOICE,
            "lesson.used.prompt",
            "lesson.used.hint",
            "lesson.used.explain",
            options=(
                "lesson.used.opt.one",
                "lesson.used.opt.few",
                "lesson.used.opt.many",
                "lesson.used.opt.never",
            ),
        ),
    ),
)
#: the growth kinds (graphs.trend) in the order of the growth step's options
GROWTH_KINDS = ("stopped", "steady", "growing")
#: the Newton step's options as step counts: (first, last) of each bucket, None = not reached
NEWTON_BUCKETS: tuple[tuple[int, int] | None, ...] = ((1, 1), (2, 5), (6, 100), None)


def step_named(name: str) -> Step:
    """The step called ``name`` (KeyError for no such step)."""
    for step in STEPS:
        if step.name == name:
            return step
    raise KeyError(name)


# ---- the answers -------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """The right answer to a step's exercise, as the core computes it.

    Attributes:
        values: NUMBER/VECTOR: the components; CHOICE: (index of the right option,).
        traps: common wrong answers, each with the translation key of what it means; the
            key's text may use {value}.
        solution: FLAGS: settings that make the goal happen (the teacher's version shows
            them; the tests run them).
        facts: numbers the explanation texts use, as (name, formatted value).
    """

    values: tuple[float, ...] = ()
    traps: tuple[tuple[tuple[float, ...], str], ...] = ()
    solution: FlagSettings | None = None
    facts: tuple[tuple[str, str], ...] = ()


def _cube(order: int) -> list[float]:
    text, x0 = CUBE
    return core.derivatives(parse(text), [x0], order).values[:, 0].tolist()


def answer(name: str) -> Answer:
    """Compute the answer of the step called ``name``.

    Example:
        >>> answer("grad").values
        (12.0,)
    """
    if name == "grad":
        f, d1 = _cube(1)
        return Answer((d1,), traps=(((f,), "lesson.trap.value"),))
    if name == "second":
        f, d1, d2, d3 = _cube(3)
        return Answer((d2,), traps=(((d3,), "lesson.trap.third"), ((f,), "lesson.trap.value")))
    if name == "growth":
        text, x0, order = GROWTH
        nodes = [s.nodes for s in core.graph_lab(parse(text), x0, order).stats]
        kind = core.trend(nodes).kind
        facts = (
            ("nodes", ", ".join(str(n) for n in nodes)),
            ("ratio", f"{nodes[-1] / nodes[-2]:.2f}"),
        )
        return Answer((float(GROWTH_KINDS.index(kind)),), facts=facts)
    if name == "hvp":
        text, point, vector = HVP
        r = core.hvp(parse(text), point, vector)
        traps = (
            (tuple(r.gradient.tolist()), "lesson.trap.gradient"),
            (tuple(vector), "lesson.trap.vector"),
        )
        return Answer(tuple(r.hvp.tolist()), traps=traps)
    if name == "used":
        # the explanation says gradient descent had not arrived after all its steps
        facts = (("steps", str(NEWTON_STEPS)),)
        return Answer((float(_bucket(_newton_steps())),), facts=facts)
    if name == "create_graph":
        return Answer(solution=FlagSettings(create_graph=False, action="next"))
    if name == "freed":
        return Answer(solution=FlagSettings(create_graph=False, action="again"))
    raise KeyError(name)


def _newton_steps(tol: float = 1e-8) -> int | None:
    """The steps θ ← θ − H⁻¹∇f takes from ``NEWTON_START`` on ``NEWTON`` until |∇f| ≤ ``tol``
    (the Newton path's convergence test on the "why" page), None if not within NEWTON_STEPS."""
    fn, point = parse(NEWTON), np.array(NEWTON_START)
    for step in range(NEWTON_STEPS + 1):
        r = core.hvp(fn, point, (0.0, 0.0))
        if np.linalg.norm(r.gradient) <= tol:
            return step
        point = point - np.linalg.solve(r.hessian, r.gradient)
    return None


def _bucket(steps: int | None) -> int:
    for index, bucket in enumerate(NEWTON_BUCKETS):
        if (bucket is None and steps is None) or (
            bucket is not None and steps is not None and bucket[0] <= steps <= bucket[1]
        ):
            return index
    return len(NEWTON_BUCKETS) - 1  # more steps than any bucket: not reached in time


# ---- checking ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """Whether an answer is right, and the translation key (with values) that says why.

    ``answered`` is False when there was nothing to judge (no answer, or one that is not a
    finite number): the explanation, which gives the answer away, is not offered then.
    """

    correct: bool
    key: str
    params: tuple[tuple[str, str], ...] = ()
    answered: bool = True


def _close(given: tuple[float, ...], truth: tuple[float, ...], tolerance: float) -> bool:
    return len(given) == len(truth) and all(
        abs(g - t) <= tolerance for g, t in zip(given, truth, strict=True)
    )


def _show(values: tuple[float, ...]) -> str:
    text = ", ".join(f"{v:.6g}" for v in values)
    return text if len(values) == 1 else f"({text})"


def check(step: Step, given: tuple[float | None, ...] | int | None, truth: Answer) -> Verdict:
    """Check a NUMBER, VECTOR or CHOICE answer against ``truth``.

    Args:
        step: the step (its exercise says the kind and the tolerance).
        given: the typed numbers (None where a box is empty), or the chosen option's index.
        truth: :func:`answer` of the step.

    Returns:
        A :class:`Verdict`: right, a known trap, too high or low, which component is off,
        or nothing given.
    """
    ex = step.exercise
    if ex.kind == CHOICE:
        if given is None:
            return Verdict(False, "lesson.check.empty", answered=False)
        right = given == int(truth.values[0])
        return Verdict(right, "lesson.check.right" if right else "lesson.check.wrong_choice")
    numbers = tuple(given) if isinstance(given, tuple) else (given,)
    if any(v is None for v in numbers):
        return Verdict(False, "lesson.check.empty", answered=False)
    if not all(math.isfinite(v) for v in numbers):
        return Verdict(False, "lesson.check.not_finite", answered=False)
    if _close(numbers, truth.values, ex.tolerance):
        return Verdict(True, "lesson.check.right")
    for trap, key in truth.traps:
        if _close(numbers, trap, ex.tolerance):
            return Verdict(False, key, (("value", _show(numbers)),))
    if ex.kind == NUMBER:
        key = "lesson.check.high" if numbers[0] > truth.values[0] else "lesson.check.low"
        return Verdict(False, key, (("value", _show(numbers)),))
    off = next(
        i
        for i, (g, t) in enumerate(zip(numbers, truth.values, strict=True))
        if abs(g - t) > ex.tolerance
    )
    return Verdict(False, "lesson.check.component", (("index", str(off + 1)),))


def check_flags(step: Step, outcome: FlagOutcome) -> Verdict:
    """Whether a flag-lab run ended as the step's goal asks (read from what PyTorch did)."""
    goal = step.exercise.goal
    if goal == NO_CREATE_GRAPH:
        met = outcome.raised and "graph.flag.explain.no_create_graph" in outcome.explain
    elif goal == SECOND_TIME:
        met = outcome.raised and "backward through the graph a second time" in outcome.error
    else:
        raise KeyError(goal)
    if met:
        return Verdict(True, "lesson.check.flags_right")
    return Verdict(False, "lesson.check.other_error" if outcome.raised else "lesson.check.ran")
