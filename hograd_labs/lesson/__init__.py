"""The guided lesson: seven steps from the derivative of x³ to Hessian-vector products, each
with a text, a live view from the labs' shared drawings and an exercise the app checks."""

from hograd_ui.lab import Lab

#: How many steps the lesson has (``compute.STEPS``, whose length a test holds to this): every
#: page's link carries the learner's step and progress, clamped to them, so app.py needs the
#: number on every run, and reads it here rather than load the lesson's kernel on every page.
STEP_COUNT = 7

#: What the app needs to know of this lab (hograd_ui/lab.py): read by pages/__init__.py.
LAB = Lab(
    __name__,
    prefixes=("lesson.",),
    url=(
        "lesson.growth.fn",
        "lesson.*.cg",
        "lesson.*.rg",
        "lesson.*.action",
    ),
    carried=("step",),
    warm=("lesson",),
)
