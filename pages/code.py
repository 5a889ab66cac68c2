"""Your own autograd code, run as written, line by line, with the graph after every line."""

from hograd_labs.code import page

page.draw()
