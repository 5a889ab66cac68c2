"""What a second derivative keeps in memory: saved tensors with and without checkpointing (the
memory page)."""

from hograd_ui.lab import Lab

#: What the app needs to know of this lab (hograd_ui/lab.py): read by pages/__init__.py.
LAB = Lab(
    __name__,
    prefixes=("memory.",),
    url=(
        "memory.width",
        "memory.depth",
        "memory.orders",
        "memory.batch",
        "memory.micro",
        "memory.screen",
    ),
)
