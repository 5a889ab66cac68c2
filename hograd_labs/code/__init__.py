"""Your own autograd code: a small PyTorch program run line by line in a killable child (the
code page)."""

from hograd_ui.lab import Lab

#: What the app needs to know of this lab (hograd_ui/lab.py): read by pages/__init__.py.
LAB = Lab(
    __name__,
    prefixes=("code.",),
    url=("code.screen",),  # the open screen projected (hograd_ui/parts/frame.py)
    params=("code.p",),
)
