"""When timings resolve a ratio: the rule on injected timings (never the wall clock), and its
use by the three ways. (The network's cost sentence uses the HVP lab's own rule:
tests/labs/test_hvp_compute.py.)"""

from __future__ import annotations

import numpy as np
import pytest

from hograd_core import curvature as cv
from hograd_core import parse
from hograd_core.timing import MIN_ROUNDS, SPREAD, resolved_ratio


def test_steady_timings_resolve_their_ratio() -> None:
    grad = np.array([1.0, 1.1, 0.9, 1.0, 1.05, 0.95, 1.0]) * 1e-3
    assert resolved_ratio(2 * grad, grad) == pytest.approx(2.0)
    # a busy moment that slows both calls of a round alike changes nothing
    busy = grad * np.array([1, 1, 9, 1, 1, 4, 1])
    assert resolved_ratio(1.5 * busy, busy) == pytest.approx(1.5)


def test_noisy_timings_resolve_nothing() -> None:
    # a 1.2k-parameter network: both calls a fraction of a millisecond, and the order of the
    # two flips from round to round
    grad = [3.1e-4, 2.9e-4, 6.0e-4, 3.0e-4, 2.8e-4, 3.3e-4, 7.1e-4]
    hvp = [1.6e-4, 3.5e-4, 2.9e-4, 5.8e-4, 1.5e-4, 3.2e-4, 3.4e-4]
    ratios = np.array(hvp) / np.array(grad)
    low, mid, high = np.percentile(ratios, [25, 50, 75])
    assert high - low > SPREAD * mid  # the rule's own condition, worked out here
    assert resolved_ratio(hvp, grad) is None


@pytest.mark.parametrize(
    ("top", "bottom"),
    [
        ([1.0] * (MIN_ROUNDS - 1), [1.0] * (MIN_ROUNDS - 1)),  # too few rounds
        ([1.0, 1.0, 0.0, 1.0, 1.0], [1.0] * 5),  # a time of zero: below the timer
        ([1.0, 1.0, np.nan, 1.0, 1.0], [1.0] * 5),
        ([1.0] * 5, [1.0] * 6),
    ],  # not paired
)
def test_unusable_timings_resolve_nothing(top: list, bottom: list) -> None:
    assert resolved_ratio(top, bottom) is None


def test_the_three_ways_show_a_ratio_only_where_resolved() -> None:
    steady = np.array([[1.0, 1.0, 1.1, 0.9, 1.0], [2.0, 2.1, 2.2, 1.8, 2.0], [5, 1, 9, 2, 7]])
    relative = cv.relative(steady * 1e-4)
    assert relative[0] == 1.0 and relative[1] == pytest.approx(2.0) and np.isnan(relative[2])


def test_the_three_ways_use_the_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cv, "resolved_ratio", lambda top, bottom: None)
    ways = cv.hvp_three_ways(parse("x*y"), [1.0, 2.0], [1.0, 0.0], repeats=5)
    assert np.all(np.isnan(ways.relative))
