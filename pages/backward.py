"""Write your own backward: a custom torch.autograd.Function from two typed formulas."""

from hograd_labs.backward import page

page.draw()
