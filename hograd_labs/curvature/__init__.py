"""The Hessian's diagonal (exact and by Hutchinson's estimate) of a typed function and of a
small network, and heavy-ball momentum on a quadratic (the why page's curvature tab)."""

from hograd_ui.lab import Lab

#: What the app needs to know of this lab (hograd_ui/lab.py): read by pages/__init__.py.
LAB = Lab(
    __name__,
    title="curvature.tab",
    prefixes=("why.curv.",),
    url=("why.curv.*",),
    views={"tab": "page:draw"},
)
