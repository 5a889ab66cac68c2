"""The live view of each lesson step, on the lesson's examples (see :mod:`.compute`). Nothing
here computes, and no lab is imported (labs never import each other): what the derivatives,
graph and HVP labs draw for a step they lend, and pages/lesson.py hands it in (:class:`Lent`),
as it hands in the Newton step's view."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Protocol

import streamlit as st

from hograd_core import HogradError
from hograd_core.flaglab import FlagOutcome, FlagSettings
from hograd_ui.parts.frame import Frame
from hograd_ui.parts.ui import show_error, t

from .compute import CUBE, GROWTH, GROWTH_CHOICES, HVP, Step

#: the chart of x³: 241 points on [-3, 3] put one exactly on x = 2
LOW, HIGH, POINTS = -3.0, 3.0, 241


class Curves(Protocol):
    """The derivatives lab's chart (hograd_labs/derivatives/embed.py)."""

    def curves_chart(
        self, text: str, low: float, high: float, points: int, order: int, key: str
    ) -> None: ...


class Flags(Protocol):
    """The graph lab's growth chart and flag lab (hograd_labs/graph/embed.py)."""

    def growth_chart(self, text: str, x0: float, order: int, key: str) -> None: ...

    def flag_controls(self, key: str, start: FlagSettings) -> tuple[bool, bool | None, str]: ...

    def flag_choices(self, key: str) -> tuple[bool, bool | None, str]: ...

    def run_flags(
        self, text: str, x0: float, create_graph: bool, retain: bool | None, action: str
    ) -> FlagOutcome: ...

    def said(self, outcome: FlagOutcome) -> None: ...

    def why(self, outcome: FlagOutcome) -> None: ...


class Contours(Protocol):
    """The HVP lab's contour picture (hograd_labs/hvp/embed.py)."""

    def contour_chart(self, text: str, point: tuple, vector: tuple, key: str) -> None: ...


@dataclass(frozen=True)
class Lent:
    """What the other labs lend the lesson's views."""

    derivatives: Curves
    graph: Flags
    hvp: Contours


def curves_view(lent: Lent, step: Step, frame: Frame) -> None:
    """f = x³ and its derivatives up to the step's order, as on the derivatives page."""
    text = CUBE[0]
    lent.derivatives.curves_chart(text, LOW, HIGH, POINTS, step.order, f"lesson.chart.{step.name}")


def flag_settings(lent: Lent, step: Step, frame: Frame) -> tuple[bool, bool | None, str]:
    """The flag lab's controls for this step (create_graph, retain_graph, the action); they
    start where the step's exercise says. They are the frame's controls: folded into the
    row projected, so the transcript is on the first screen, and under it on a phone."""
    with frame.controls():
        st.markdown(f"**{t('lesson.flags.settings')}**")
        # in the link when they differ from the start
        return lent.graph.flag_controls(f"lesson.{step.name}", step.exercise.start)


def run_flags_for(lent: Lent, settings: tuple[bool, bool | None, str]) -> FlagOutcome:
    """The flag lab's run of x³ at 2 with these settings (create_graph, retain_graph, the
    action); cached, shared with the graph page."""
    text, x0 = CUBE
    return lent.graph.run_flags(text, x0, *settings)


def flags_view(lent: Lent, step: Step, frame: Frame) -> None:
    """The flag lab on x³ at x = 2: the settings, what PyTorch printed or raised, and why."""
    try:
        outcome = run_flags_for(lent, flag_settings(lent, step, frame))
    except HogradError as err:
        show_error(err)
        return
    st.markdown(f"**{t('lesson.flags.outcome')}**")
    lent.graph.said(outcome)
    lent.graph.why(outcome)


def growth_view(lent: Lent, step: Step, frame: Frame) -> None:
    """Nodes, depth, saved bytes and time per order, as on the graph page; the function is
    picked in the frame's row of buttons (one click away in every mode)."""
    _, x0, order = GROWTH
    text = (
        frame.buttons().segmented_control(
            t("lesson.growth.pick"),
            list(GROWTH_CHOICES),
            default=GROWTH_CHOICES[0],
            required=True,
            key="lesson.growth.fn",
            bind="query-params",
        )
        or GROWTH_CHOICES[0]
    )
    lent.graph.growth_chart(text, x0, order, f"lesson.chart.{step.name}")


def hvp_view(lent: Lent, step: Step, frame: Frame) -> None:
    """The contour picture of the Hessian-vector product page, at the seed's point."""
    text, point, vector = HVP
    lent.hvp.contour_chart(text, point, vector, f"lesson.chart.{step.name}")


def views(lent: Lent) -> dict[str, Callable[[Step, Frame], None]]:
    """This lab's step views, drawn with what ``lent`` lends. The Newton step's view is the
    Newton lab's (hograd_labs/newton/page.py), added by pages/lesson.py."""
    own = {"curves": curves_view, "flags": flags_view, "growth": growth_view, "hvp": hvp_view}
    return {name: partial(view, lent) for name, view in own.items()}
