"""The stability limit of gradient descent: lr against 2/λ_max on a quadratic and a network
(the why page's stability tab)."""

from hograd_ui.lab import Lab

#: What the app needs to know of this lab (hograd_ui/lab.py): read by pages/__init__.py.
LAB = Lab(
    __name__,
    title="stability.tab",
    prefixes=("why.stability.",),
    url=(
        "why.stability.part",
        "why.stability.kappa",
        "why.stability.lr",
        "why.stability.steps",
    ),
    views={"tab": "page:draw"},
)
