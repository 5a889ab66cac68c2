"""Plotly figures without the per-figure template copy (shared by every figure module).

``go.Figure()`` deep-copies its template: about 11 ms for "plotly_white", 2 ms for the
default, on every script run of every student, and ``st.plotly_chart`` copies it again. That
was the largest single cost of a derivatives rerun. Here figures are built from plain dicts
with plotly's validation switched off and an empty template, which Streamlit's theme fills in
the browser as it does for any figure.

Validation still happens, in the tests: :func:`validated` rebuilds a figure with every check
on, and tests/app/conftest.py applies it to every figure a page passes to st.plotly_chart.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

__all__ = ["new_figure", "new_subplots", "validated"]

# Streamlit's theme replaces the template in the browser: screenshots of the derivatives chart
# and of the graph page's charts with plotly_white and with this empty template were
# pixel-identical (apart from the measured timings plotted), so none is sent.
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
