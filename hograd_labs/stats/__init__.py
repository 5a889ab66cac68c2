"""Gradient statistics of a deep network: norms, histograms, clipping, NaN checks, float32 against
float64 (the why page's gradient-statistics tab)."""

from hograd_ui.lab import Lab

#: What the app needs to know of this lab (hograd_ui/lab.py): read by pages/__init__.py.
LAB = Lab(
    __name__,
    title="stats.tab",
    prefixes=("why.stats.",),
    url=("why.stats.screen",),
    views={"tab": "page:draw"},
)
