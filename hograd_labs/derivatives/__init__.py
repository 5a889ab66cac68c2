"""The derivatives lab: f and every derivative of it, a point inspector checked four ways."""

from hograd_ui.lab import Lab

#: What the app needs to know of this lab (hograd_ui/lab.py): read by pages/__init__.py.
LAB = Lab(
    __name__,
    prefixes=("deriv.",),
    url=(
        "deriv.fn",
        "deriv.method",
        "deriv.separate",
        "deriv.order",
        "deriv.range",
        "deriv.points",
        "deriv.x0",
        "deriv.tab",
        "deriv.screen",
    ),
    runtime_keys=frozenset(
        {
            "deriv.disagree.convention",
            "deriv.disagree.other",
            "deriv.disagree.power",
            "deriv.disagree.torch_formula",
            "deriv.method.autograd",
            "deriv.method.taylor",
            "deriv.note.abs",
            "deriv.note.i0_near_zero",
            "deriv.note.i1_near_zero",
            "deriv.note.polygamma_left",
            "deriv.note.relu",
            "deriv.note.singular",
            "deriv.note.trigamma",
            "deriv.note.zero_power",
            "deriv.tab.code",
            "deriv.tab.cost",
            "deriv.tab.inspector",
            "deriv.tab.symbolic",
            "deriv.tab.taylor",
            "deriv.taylor.not_finite",
            "deriv.taylor.rounding",
            "deriv.taylor.unsettled",
        }
    ),
    warm=("derivatives",),
)
