"""Write your own backward: a custom autograd.Function, checked against autograd, gradcheck and
gradgradcheck, with an error decoder for what PyTorch says (the backward page)."""

from hograd_ui.lab import Lab

#: What the app needs to know of this lab (hograd_ui/lab.py): read by pages/__init__.py.
LAB = Lab(
    __name__,
    prefixes=("backward.",),
    url=(
        "backward.f",
        "backward.b",
        "backward.range",
        "backward.points",
        "backward.variant",
        "backward.x0",
        "backward.decode",
        "backward.screen",
    ),
    warm=("backward?backward.decode=element+0+of+tensors+does+not+require+grad",),
)
