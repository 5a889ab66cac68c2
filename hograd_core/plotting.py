"""Plotly figures without the per-figure template copy (shared by every figure module).

``go.Figure()`` deep-copies its template: about 11 ms for "plotly_white", 2 ms for the
default, on every script run of every student. That was the largest single cost of a
derivatives rerun. Here the template is turned into plain JSON once, and figures are built
with plotly's validation switched off, so attaching it costs about 1 ms. Streamlit's own theme
then restyles the template in the browser, as it does for any figure.

Validation still happens, in the tests: :func:`validated` rebuilds a figure with every check
on, and tests/core/test_figures.py runs it over every figure the app draws.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

__all__ = ["new_figure", "new_subplots", "validated"]

_TEMPLATE: dict[str, Any] = {"layout": {}}


def new_figure(data: Any = None, **layout: Any) -> go.Figure:
    """A figure with the house template; ``layout`` as in ``fig.update_layout`` (without the
    magic underscores: ``xaxis={"title": ...}``, not ``xaxis_title``)."""
    return go.Figure(data=data, layout={"template": _TEMPLATE, **layout}, _validate=False)


def new_subplots(**kwargs: Any) -> go.Figure:
    """``make_subplots(**kwargs)`` on a :func:`new_figure`."""
    return make_subplots(figure=new_figure(), **kwargs)


def validated(fig: go.Figure) -> go.Figure:
    """The same figure rebuilt with all of plotly's checks (raises on any invalid property)."""
    return go.Figure(fig.to_dict())
