"""The charts a page draws under AppTest (hograd_ui/parts/chart.py), as plotly figure dicts.

AppTest knows the chart component only as an element of unknown type: its data is the bytes
the browser receives, one JSON text with the figure in it.
"""

from __future__ import annotations

import json
from typing import Any

from streamlit.testing.v1 import AppTest

from hograd_ui.parts.chart import NAME


def chart_elements(at: AppTest) -> list[Any]:
    """Every chart of the page, in order (the HVP page's 3-D surface among them)."""
    return [e for e in at.get("bidi_component") if e.proto.component_name == NAME]


def figure_of(element: Any) -> dict:
    """The figure a chart element draws (``to_dict()`` with the theme, hograd_ui/parts/chart.py)."""
    return json.loads(element.proto.bytes)["figure"]


def chart_specs(at: AppTest) -> list[dict]:
    """Every chart of the page, as its figure dict."""
    return [figure_of(e) for e in chart_elements(at)]
