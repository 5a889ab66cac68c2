"""Newton's method against gradient descent on a typed function (the why page's Newton tab)."""

from hograd_ui.lab import Lab

#: What the app needs to know of this lab (hograd_ui/lab.py): read by pages/__init__.py.
LAB = Lab(
    __name__,
    title="newton.tab",
    prefixes=("why.newton.",),
    url=("why.newton.*",),
    warm=("why",),
    views={"tab": "page:draw", "lesson": "page:lesson_view"},
)
