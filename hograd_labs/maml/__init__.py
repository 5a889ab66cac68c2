"""MAML on sine waves: second- against first-order meta-learning (the why page's MAML tab)."""

from hograd_ui.lab import Lab

#: What the app needs to know of this lab (hograd_ui/lab.py): read by pages/__init__.py.
LAB = Lab(
    __name__,
    title="maml.tab",
    prefixes=("why.maml.",),
    url=(
        "why.maml.amp",
        "why.maml.phase",
        "why.maml.adapt",
        "why.maml.screen",
    ),
    views={"tab": "page:draw"},
)
