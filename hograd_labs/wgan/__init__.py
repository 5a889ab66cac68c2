"""WGAN-GP on 2-D toy data: the gradient penalty and its create_graph (the WGAN-GP tab)."""

from hograd_ui.lab import Lab

#: What the app needs to know of this lab (hograd_ui/lab.py): read by pages/__init__.py.
LAB = Lab(
    __name__,
    title="wgan.tab",
    prefixes=("why.wgan.",),
    url=(
        "why.wgan.graph",
        "why.wgan.screen",
    ),
    views={"tab": "page:draw"},
)
