"""Log axes that stay readable: few decades get ticks at 1, 2 and 5 (plotly's own choice there,
every digit, crowds its small labels), more decades a tick at every n-th power of ten, at most
MAX_LOG_LABELS of them (plotly's choices there ran into each other on a projector); and the gradient
statistics chart names only its first and last layer in the legend."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from hograd_labs.stats import compute as gs
from hograd_labs.stats.figures import layer_norms_figure
from hograd_ui.plot_kit import FEW_DECADES, MAX_LOG_LABELS, log_axis
from hograd_ui.plotting import validated
from tests.arrays import plotly_array


@pytest.mark.parametrize(
    ("series", "decades"),
    [
        (([0.1, 2.0],), 1.3),
        (([1e-3, 0.2], [0.5, 0.9]), 2.95),  # over both series together
        (([0.01, 0.2], [0.5, 2.0]), 2.3),
        (([1e-18, 1.0],), 18.0),
        (([1.0, 10 ** (FEW_DECADES - 0.01)],), FEW_DECADES - 0.01),
        (([1.0, 10 ** (FEW_DECADES + 0.01)],), FEW_DECADES + 0.01),
        (([1e-4, 2.0],), 4.3),  # the PINN's loss terms: 2 and 5 overlapped the powers
        (([1e-18, 1e3],), 21.0),  # Newton's f − f*: every third power overlapped
        (([1.0, 1e5],), 5.0),
        (([1.0, 10**5.01],), 5.01),
        (([0.0, -1.0, np.nan, np.inf, 0.5, 2.0],), 0.6),  # only finite positive values count
        (([np.nan, 0.0],), None),  # nothing to show: plotly's choice
        ((), None),
    ],
)
def test_ticks_at_1_2_5_over_few_decades_at_powers_over_more(
    series: tuple, decades: float | None
) -> None:
    axis = log_axis("loss", *series)
    assert axis["type"] == "log" and axis["exponentformat"] == "power"
    assert axis["title"]["text"] == "loss"
    if decades is None:
        assert "dtick" not in axis
    elif decades < FEW_DECADES:
        assert axis["dtick"] == "D2"
    else:  # every n-th power: at most MAX_LOG_LABELS labels, and n the smallest that does it
        n = axis["dtick"]
        assert isinstance(n, int) and n >= 1
        assert math.floor(decades / n) + 1 <= MAX_LOG_LABELS
        assert n == 1 or math.floor(decades / (n - 1)) + 1 > MAX_LOG_LABELS


def test_the_layer_chart_names_the_first_and_last_layer_and_draws_every_one() -> None:
    config = dataclasses.replace(gs.SCENARIOS["healthy"], steps=5)
    stats = gs.run(config)
    fig = validated(layer_norms_figure(stats, "en"))  # plotly's own checks pass
    names = [t.name for t in fig.data]
    assert names == list(stats.layer_names)
    assert [t.name for t in fig.data if t.showlegend] == [names[0], names[-1]]
    for k, trace in enumerate(fig.data):
        np.testing.assert_allclose(plotly_array(trace.y), stats.layer_norms[:, k])
    assert fig.layout.yaxis.type == "log"
