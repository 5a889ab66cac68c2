"""benchmarks/plotly_bundles.py draws the contour with each bundle it is given, alternating
(here the full bundle twice: the structure, not the times, which are the benchmark's)."""

from __future__ import annotations

from benchmarks.plotly_bundles import APP_BUNDLE, full_bundle, header, measure
from hograd_ui.parts.chart import BUNDLE


def test_each_bundle_loads_then_draws(browser) -> None:
    r = measure(full_bundle(), rounds=2, browser=browser)
    assert list(r) == ["full", "partial"]
    for d in r.values():
        assert len(d["loaded_ms"]) == len(d["drawn_ms"]) == 2
        assert all(0 < lo <= dr for lo, dr in zip(d["loaded_ms"], d["drawn_ms"], strict=True))
    assert header(full_bundle()).startswith("plotly.js v")


def test_the_default_partial_bundle_is_the_apps() -> None:
    assert APP_BUNDLE == BUNDLE and header(APP_BUNDLE).startswith("plotly.js (cartesian")
