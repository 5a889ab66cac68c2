"""Hessian-vector products: what Hv means on a typed function, and on a trained network."""

from hograd_labs.hvp import page

page.draw()
