"""The physics-informed network lab (a tab of "Why gradients of gradients")."""

from hograd_ui.lab import Lab

#: What the app needs to know of this lab (hograd_ui/lab.py): read by pages/__init__.py.
LAB = Lab(
    __name__,
    title="pinn.tab",
    prefixes=("why.pinn.",),
    url=(
        "why.pinn.equation",
        "why.pinn.screen",
    ),
    views={"tab": "page:draw"},
)
