"""Hessian-free Newton on a small network against SGD and Adam (the why page's Hessian-free tab)."""

from hograd_ui.lab import Lab

#: What the app needs to know of this lab (hograd_ui/lab.py): read by pages/__init__.py.
LAB = Lab(
    __name__,
    title="hf.tab",
    prefixes=("why.hf.",),
    url=(
        "why.hf.axis",
        "why.hf.screen",
    ),
    views={"tab": "page:draw"},
)
