"""Plotly figures without the per-figure template copy (shared by every figure module).

``go.Figure()`` deep-copies its template: about 11 ms for "plotly_white", 2 ms for the
default, on every script run of every student, and ``st.plotly_chart`` copies it again. That
was the largest single cost of a derivatives rerun. Here figures are built from plain dicts,
with plotly's validation switched off and the template prepared once as JSON.

Validation still happens, in the tests: :func:`validated` rebuilds a figure with every check
on, and tests/app/conftest.py applies it to every figure a page passes to st.plotly_chart.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
import plotly.io as pio
from plotly.subplots import make_subplots

__all__ = ["new_figure", "new_subplots", "validated"]

# plotly_white, as plain JSON made once: attaching it costs ~0.3 ms, copying the template
# object (what go.Figure(template=...) does) ~11 ms. Streamlit's theme restyles lines and
# markers whatever the template, but contours, heatmaps, bars and 3-D scenes keep what
# plotly_white gives them (colorbars without outline, light zero lines, pale scene axes): with
# an empty template the HVP page's screenshots changed.
_TEMPLATE: dict[str, Any] = pio.templates["plotly_white"].to_plotly_json()


def new_figure(data: Any = None, frames: Any = None, **layout: Any) -> go.Figure:
    """A figure with the house template; ``layout`` as in ``fig.update_layout`` (without the
    magic underscores: ``xaxis={"title": ...}``, not ``xaxis_title``); ``frames`` as dicts.

    Note:
        Read the frames of such a figure through :func:`validated`: plotly cannot turn an
        unchecked frame's data back into trace objects (``fig.frames[0].data`` raises).
    """
    fig = go.Figure(data=data, layout={"template": _TEMPLATE, **layout}, _validate=False)
    if frames:
        # go.Figure checks frames even with _validate=False (about 0.7 ms a frame), so they are
        # attached unchecked (plotly is pinned); validated() checks them with the rest.
        fig._frame_objs = tuple(go.Frame(frame, _validate=False) for frame in frames)
    return fig


def new_subplots(**kwargs: Any) -> go.Figure:
    """``make_subplots(**kwargs)`` on a :func:`new_figure`."""
    return make_subplots(figure=new_figure(), **kwargs)


def validated(fig: go.Figure) -> go.Figure:
    """The same figure rebuilt with all of plotly's checks (raises on any invalid property)."""
    return go.Figure(fig.to_dict())
