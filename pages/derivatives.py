"""Derivatives of every order: f and its derivatives, a point inspector checked four ways."""

from hograd_labs.derivatives import page

page.draw()
