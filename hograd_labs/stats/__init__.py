"""Gradient statistics of a deep network: norms, histograms, clipping, NaN checks, float32 against
float64 (the why page's gradient-statistics tab)."""
