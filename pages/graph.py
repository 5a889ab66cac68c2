"""Double-backward graph lab: the autograd graph pass by pass, the flag lab, the classic traps."""

from hograd_labs.graph import page

page.draw()
