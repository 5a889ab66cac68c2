"""Every LaTeX string the app builds is valid for KaTeX, whatever the variables are called
(issue 35, finding 9): ``a__b**2`` showed KaTeX's red "Double subscript", because the label
``f(a__b)`` wrote the raw name beside sympy's formula.

Variable names reach LaTeX only through sympy's printer (``name_latex``, in the exact maths' child: hograd_serving/exact_child.py), which
reads ``a__b`` as a with the superscript b, ``w1`` as w with the subscript 1, and ``xdot`` as
an x with a dot, in the labels as in the formulas. The oracle is the KaTeX of Streamlit's own
front end (tests/katex.py); the corpus is built from sympy's own naming rules (its modifiers,
Greek letters and symbols), underscores in every position the language allows, and LaTeX
command words.
"""

from __future__ import annotations

import importlib
import itertools
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from hograd_core import ExpressionError, parse
from hograd_core.language import Function
from hograd_core.language.to_sympy import name_latex, symbol, to_latex
from hograd_core.symbolic import symbolic_derivatives
from tests.app.conftest import open_page
from tests.katex import katex_errors

_printer = importlib.import_module("sympy.printing.latex")
MODIFIERS = sorted(_printer.modifier_dict)
GREEK = sorted(_printer.greek_letters_set) + sorted(_printer.other_symbols)
UNDERSCORES = [
    "a__b",
    "a_b_c",
    "a___b",
    "a_",
    "a__",
    "x__1",
    "a_b__c",
    "a__b_c__d",
    "w1",
    "w_1",
    "x10",
    "x_1_2",
    "a1_b2",
    "Z__Z",
    "a____",
]
COMMANDS = [
    "frac",
    "sqrt",
    "left",
    "right",
    "over",
    "begin",
    "end",
    "textbf",
    "mathrm",
    "limits",
    "displaystyle",
    "newcommand",
    "hline",
    "hfill",
    "operatorname",
]


def variable_names() -> list[str]:
    """The corpus, kept to the names the function language takes as a variable."""
    names = set(UNDERSCORES + COMMANDS + GREEK)
    for m in MODIFIERS:
        names |= {f"x{m}", f"x_{m}", f"a{m}_b", f"alpha{m}", f"x__{m}", f"{m}", f"x{m}{m}"}
    for g in GREEK[:8]:
        names |= {f"{g}_1", f"x_{g}", f"{g}__{g}", f"{g}dot_{g}"}
    out = []
    for name in sorted(names):
        try:
            fn = parse(f"{name}**2")
        except ExpressionError:
            continue
        if fn.variables == (name,):
            out.append(name)
    return out


#: sympy's printer writes a name with the modifier "prime" (or "prm") and a subscript as
#: ``{a}'_{b}``, and its power as ``{a}'_{b}^{2}``: a double superscript. The language prints
#: such a name in braces (hograd_core/language/to_sympy.py: name_latex).
PRIMED = [n for n in variable_names() if any(f"{m}_" in n for m in ("prime", "prm"))]
NAMES = [n for n in variable_names() if n not in PRIMED]
SHAPES = ["{0}**2", "sin({0})*exp(-{0}^2)", "{0}**3/(1+{0}^2)"]


def _names(fn: Function) -> tuple[str, ...]:
    """Each variable's name in LaTeX, as the exact maths' child prints it for the pages."""
    return tuple(name_latex(symbol(name)) for name in fn.variables)


def test_the_corpus_is_large_and_has_the_reported_name() -> None:
    assert len(NAMES) >= 150 and "a__b" in NAMES and "xddddot" in NAMES


def test_every_label_and_formula_of_every_name_is_valid_katex(tmp_path: Path) -> None:
    """The strings the pages write: ``f(name) = formula`` (derivatives), ``f = formula``
    (HVP page, two variables) and ``f'(name) = derivative`` (the formulas tab), each label
    with the name as the child's ``name_latex`` gives it."""
    texts = []
    for name, shape in itertools.product(NAMES, SHAPES):
        fn = parse(shape.format(name))
        (tex,) = _names(fn)
        texts.append(f"f({tex}) = {to_latex(fn.tree)}")
        two = parse(f"{name}*y + sin({name})")
        texts.append("f = " + to_latex(two.tree))
    for name in NAMES:  # sympy's derivatives, as the formulas tab shows them
        fn = parse(SHAPES[1].format(name))
        (tex,) = _names(fn)
        for k, latex in enumerate(symbolic_derivatives(fn, 2).latex):
            texts.append(f"f{chr(39) * k}({tex}) = {latex}")
    assert katex_errors(texts, tmp_path) == {}


def test_primed_names_with_a_subscript_are_valid_katex(tmp_path: Path) -> None:
    assert PRIMED
    texts = [to_latex(parse(f"{name}**2").tree) for name in PRIMED]
    texts += [t for name in PRIMED for t in symbolic_derivatives(parse(f"{name}**3"), 2).latex]
    assert katex_errors(texts, tmp_path) == {}


def latex_of(at: AppTest) -> list[str]:
    """The LaTeX of every st.latex element (which Streamlit sends as a $$ ... $$ block)."""
    return [e.value.strip().removeprefix("$$").removesuffix("$$").strip() for e in at.latex]


@pytest.mark.parametrize("name", ["a__b", "a___b", "x_1_2", "a__", "xddddot", "alpha__beta"])
def test_the_pages_latex_is_valid_katex(name: str, tmp_path: Path) -> None:
    """The pages themselves, under AppTest: the derivatives page's formula and its formulas
    tab, and the HVP page's formula, for names that trip a raw label."""
    at = open_page("pages/derivatives.py")
    at.text_input(key="deriv.fn").set_value(f"{name}**2").run()
    at.session_state["deriv.tab"] = "symbolic"
    at.run()
    assert not at.exception
    texts = latex_of(at)
    assert len(texts) >= 3, texts  # f, f' and f'' at least
    hvp = open_page("pages/hvp.py")
    hvp.text_input(key="hvp.fn").set_value(f"{name}**2*y").run()
    assert not hvp.exception
    texts += latex_of(hvp)
    assert any("y" in tex for tex in latex_of(hvp))
    assert katex_errors(texts, tmp_path) == {}
