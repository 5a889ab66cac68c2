"""Memory under double backward: saved bytes per order, checkpointing, accumulation, retain."""

from hograd_labs.memory import page

page.draw()
