"""Reading numbers back out of a chart: plotly keeps numpy arrays base64-encoded in its dict
and in the JSON Streamlit sends ({"dtype": "f8", "bdata": ...}), lists stay lists."""

from __future__ import annotations

import base64

import numpy as np


def plotly_array(array: object) -> np.ndarray:
    """The numbers of one of a figure's arrays (``trace["y"]``), however plotly stored them."""
    if isinstance(array, dict):
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"])
    return np.asarray(array, dtype=float)
