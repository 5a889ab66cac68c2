"""The function language: what it accepts, what it refuses, and that refusing runs nothing."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
import sympy as sp
import torch

from hograd_core import FUNCTIONS, ExpressionError, HogradError, parse
from hograd_core.language import LIMITS
from hograd_core.language.to_sympy import to_latex, to_sympy
from hograd_ui.i18n import error_text
from tests.calls import call
from tests.english import english, raises

# ---- a tripwire: nothing a user types may open a file, start a process or execute code -------

_TRIPPED: list[str] = []
_ARMED = [False]
_WATCHED = (
    "os.system",
    "subprocess.Popen",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.fork",
    "exec",
    "compile",
    "open",
    "socket.connect",
    "builtins.input",
    "ctypes.dlopen",
    "import",
    "os.remove",
    "shutil.rmtree",
    "pty.spawn",
)


def _hook(event: str, args: tuple) -> None:
    if _ARMED[0] and event.startswith(_WATCHED):
        _TRIPPED.append(event)


sys.addaudithook(_hook)


def parse_armed(text: str):
    """parse() with the tripwire armed; returns the error (or the function) and the events."""
    _TRIPPED.clear()
    _ARMED[0] = True
    try:
        return parse(text), list(_TRIPPED)
    except ExpressionError as err:
        return err, list(_TRIPPED)
    finally:
        _ARMED[0] = False


@pytest.fixture(autouse=True, scope="module")
def _warm_imports() -> None:
    # Lazy imports on first use (difflib for suggestions) must not count as the user's doing.
    for text in ("sinn(x)", "2x", "x.y", "π", "9**9**9"):
        with pytest.raises(ExpressionError):
            parse(text)


# ---- accepted ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "variables"),
    [
        ("x**3", ("x",)),
        ("sin(x)*exp(-x^2)", ("x",)),
        ("1/(1+x^2)", ("x",)),
        ("w1**2*sin(w2)", ("w1", "w2")),
        ("x^2 - y^2", ("x", "y")),
        ("w10 + w2 + w1", ("w1", "w2", "w10")),
        ("z + y + x", ("x", "y", "z")),
        ("theta*pi + e", ("theta",)),
        ("2", ()),
        ("1e-3*x + .5 + 2.", ("x",)),
        ("-x**2", ("x",)),
        ("+x", ("x",)),
        ("2**-x", ("x",)),
        ("sigmoid(x)+softplus(x)+relu(x)+erf(x)+abs(x)", ("x",)),
    ],
)
def test_accepts(text: str, variables: tuple[str, ...]) -> None:
    fn = parse(text)
    assert fn.variables == variables
    assert to_latex(fn.tree)  # sympy produced some LaTeX


#: An argument inside each function's domain at x = 0.7 and at 0.3 (acosh needs at least 1).
INNER = {"acosh": "0.3*x + 1.1"}


def test_every_function_is_accepted_and_matches_sympy() -> None:
    for name in FUNCTIONS:
        fn = parse(call(name, INNER.get(name, "0.3*x + 0.1")))
        x0 = 0.7
        torch_value = float(fn.torch({"x": torch.tensor(x0, dtype=torch.float64)}))
        sym = to_sympy(fn.tree).subs(sp.Symbol("x", real=True), sp.Float(x0, 30)).evalf(30)
        assert torch_value == pytest.approx(float(sym), rel=1e-12), name


def test_every_function_folds_to_the_value_torch_computes() -> None:
    # Constant parts are folded with numpy at parse time; the evaluator never sees them.
    x = torch.tensor(0.3, dtype=torch.float64)
    for name in FUNCTIONS:
        inner = INNER.get(name, "0.3*x + 0.1")
        folded = parse(call(name, inner.replace("x", "0.3"))).tree.const
        value = float(parse(call(name, inner)).torch({"x": x}))
        assert folded == pytest.approx(value, rel=1e-15), name


def test_power_binds_tighter_than_unary_minus_and_right_associative() -> None:
    two = {"x": torch.tensor(2.0, dtype=torch.float64)}
    assert float(parse("-x**2").torch(two)) == -4.0
    assert float(parse("-x^2").torch(two)) == -4.0
    assert float(parse("2**3**2").torch({})) == 512.0  # 2**(3**2), as in Python
    assert float(parse("x^2+1").torch(two)) == 5.0  # ^ is power, not XOR with lower precedence


def test_variables_named_by_caller() -> None:
    fn = parse("b + a", variables=("b", "a"))
    assert fn.variables == ("b", "a")
    with raises(ExpressionError, match="'y' at column 5 is not allowed here"):
        parse("x + y", variables=("x",))


def test_latex_comes_from_sympy_not_the_text() -> None:
    assert to_latex(parse("x^3").tree) == "x^{3}"
    assert r"\sin" in to_latex(parse("sin(x)").tree)
    assert to_latex(parse("w1**2").tree) == "w_{1}^{2}"


def test_constant_tower_is_folded_in_float64() -> None:
    err, _ = parse_armed("9**9**9")
    assert isinstance(err, ExpressionError)
    assert "too large for float64" in english(err)
    assert "9**9**9" in english(err) or "9**(9**9)" in english(err)
    # A large but finite exponent stays fine and is never computed as a Python integer.
    assert parse("x**(9**9)").variables == ("x",)


def test_error_family() -> None:
    assert issubclass(ExpressionError, HogradError)
    assert issubclass(HogradError, ValueError)


# ---- refused, with a message that names the piece, its column and the fix ---------------------

NAMED_ERRORS = [
    ("2x", "'2x' at column 1 needs an explicit multiplication sign: write 2\\*x"),
    ("3 sin(x)", "write 3\\*sin"),
    ("(x+1)(x-1)", "write \\)\\*\\("),
    ("torch.os", "'torch.os' at column 1 uses a dot"),
    ("x.__class__", "'x.__class__' at column 1 uses a dot"),
    ("foo(x)", "'foo' at column 1 is not a known function"),
    ("sinn(x)", "did you mean sin"),
    ("ln(x)", "did you mean log"),
    ("sin", "'sin' at column 1 is a function; give it an argument"),
    ("sin(x, 2)", "sin\\(\\) at column 1 takes exactly one argument"),
    ("sin()", "takes exactly one argument, got 0"),
    ("x[0]", "'\\[' at column 2: lists and indexing"),
    ("'x'", "a quote \\('\\) at column 1"),
    ('"x"', 'a quote \\("\\) at column 1'),
    ("x < 2", "'<' at column 3 is a comparison"),
    ("x == 2", "'==' at column 3 is a comparison"),
    ("x and y", "'and' at column 3 is a logical"),
    ("not x", "'not' at column 1 is a logical"),
    ("lambda: 1", "'lambda' at column 1"),
    ("f = x**2", "'=' at column 3"),
    ("sin(x=1)", "'=' at column 6"),
    ("x if x else 1", "'if' at column 3: conditionals"),
    ("[x for x in y]", "'\\[' at column 1"),
    ("f'{x}'", "a quote \\('\\) at column 2"),
    ("sin(*x)", "'\\*' at column 5 has nothing before it"),
    ("x^^2", "'\\^\\^' at column 2: two operators in a row"),
    ("x % 2", "'%' at column 3"),
    ("x & 1", "'&' at column 3"),
    ("x | 1", "'\\|' at column 3"),
    ("~x", "'~' at column 1"),
    ("x @ y", "'@' at column 3"),
    ("x; y", "';' at column 2"),
    ("x # comment", "'#' at column 3"),
    ("\\sin{x}", "'\\\\' at column 1: LaTeX commands"),
    ("{x}", "'\\{' at column 1: braces"),
    ("x:=1", "':' at column 2"),
    ("import os", "'import' at column 1 is a Python statement"),
    ("None", "'None' at column 1 is a Python value"),
    ("__import__", "starts with an underscore"),
    ("_x", "starts with an underscore"),
    ("0x1F", "'0x' at column 1 looks like a hexadecimal"),
    ("1e7*x", "the number 1e7 at column 1 is too large"),
    ("1e400", "the number 1e400 at column 1 is too large"),
    ("π*x", "'π' \\(U\\+03C0 GREEK SMALL LETTER PI\\) at column 1 is not allowed. Write pi"),
    ("x²", "column 2 is not allowed. Write \\*\\*2"),
    ("x×y", "Write \\*"),
    ("x\u200b+1", "invisible or control character \\(U\\+200B ZERO WIDTH SPACE\\) at column 2"),
    ("\u0445**2", "U\\+0445 CYRILLIC SMALL LETTER HA"),
    ("x\n+1", "U\\+000A"),
    ("(x+1", "the '\\(' at column 1 is never closed"),
    ("x+1)", "the '\\)' at column 4 has no matching"),
    ("x+", "ends too early"),
    ("*x", "'\\*' at column 1 has nothing before it"),
    ("x**", "ends too early"),
    ("()", "empty parentheses at column 1"),
    ("1,5*x", "a comma at column 2"),
    ("", "the box is empty"),
    ("   ", "the box is empty"),
    ("x" * 201, "at most 200 characters, got 201"),
    ("x+" * 99 + "x", "at most 150 numbers, names and operations"),
    ("(" * 31 + "x" + ")" * 31, "nested more than 30 levels deep"),
    ("-" * 40 + "x", "nested more than 30 levels deep"),
    ("log(-1)", "log\\(-1\\) has no real value: log needs an argument greater than 0, got -1"),
    ("1/0", "the constant part 1/0 divides by zero"),
    ("a+b+c+d+e1+f+g+h+i+j+k", "more than 10 different variables"),
    ("abcdefghijklmnopqrstuvwxyz", "longer than 24 characters"),
]


@pytest.mark.parametrize(("text", "pattern"), NAMED_ERRORS)
def test_refuses_with_a_specific_message(text: str, pattern: str) -> None:
    err, tripped = parse_armed(text)
    assert isinstance(err, ExpressionError), f"{text!r} was accepted"
    assert tripped == []
    assert err.key.startswith("expr.")
    with raises(ExpressionError, match=pattern):
        parse(text)


HOSTILE = [
    "__import__('os').system('touch /tmp/hograd_pwned')",
    "__builtins__",
    "().__class__.__bases__[0].__subclasses__()",
    "eval('1')",
    "exec('import os')",
    "open('/etc/passwd').read()",
    "torch.os.system('id')",
    "torch.load('x')",
    "np.os",
    "sympy.sympify('x')",
    "globals()",
    "locals()['x']",
    "getattr(x, 'y')",
    "x.__dict__",
    "(lambda: 1)()",
    "[].append",
    "{'a': 1}",
    "b'bytes'",
    "x if True else y",
    "1 if x else 2",
    "f'{__import__(\"os\")}'",
    "sin(x).real",
    "sin.__call__(x)",
    "compile('1','','eval')",
    "input()",
    "print(x)",
    "breakpoint()",
    "help()",
    "exit()",
    "sin(x)#comment",
    "x;import os",
    "x\nimport os",
    "x\r\n",
    "\x00x",
    "x\x1b[31m",
    "\ufeffx",
    "x\u202e+1",
    "ｘ**2",
    "x（1）",
    "sin⁡(x)",
    "$\\href{http://evil}{x}$",
    "![img](http://evil/x.png)",
    "<script>alert(1)</script>",
    "[link](javascript:alert(1))",
    "<img src=x onerror=alert(1)>",
    "9**9**9**9",
    "(9**9)**(9**9)",
    "10**10**10",
    "exp(exp(exp(1000)))",
    "1e308*1e308",
    "x" + "*x" * 120,
    "sin(" * 35 + "x" + ")" * 35,
    "(" * 500 + ")" * 500,
    "x" * 10_000,
    "-" * 10_000,
    "1" * 10_000,
    "\u0430*x",  # Cyrillic a
    "\u03bf*x",  # Greek omicron
    "x\u00a0+1",
    "nan",
    "inf*x",
    "sin(x)**sin(x)**sin(x)**sin(x)**sin(x)**sin(x)**sin(x)**sin(x)**sin(x)**sin(x)**sin(x)**sin(x)**sin(x)**sin(x)**sin(x)**sin(x)**sin(x)**sin(x)**sin(x)**sin(x)**sin(x)",
    "async x",
    "await x",
    "yield x",
    "x:int",
    "*args",
    "**kwargs",
    "sin(**x)",
    "x..y",
    "1.2.3",
    "0b101",
    "0o17",
    "1j*x",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_input_is_refused_and_runs_nothing(text: str) -> None:
    result, tripped = parse_armed(text)
    assert tripped == [], f"{text!r} triggered {tripped}"
    if isinstance(result, ExpressionError):
        assert error_text(result, "en")
        assert error_text(result, "zh")
        return
    # A few of these are harmless formulas after all ("nan", "inf*x", "1j*x" read as
    # variables): accepted only as a tree of numbers and variable names.
    assert all(name.isidentifier() and not name.startswith("_") for name in result.variables)


def test_at_least_sixty_hostile_inputs() -> None:
    assert len(HOSTILE) + len(NAMED_ERRORS) >= 120
    refused = sum(isinstance(parse_armed(text)[0], ExpressionError) for text in HOSTILE)
    assert refused >= 60


def test_no_live_object_is_reachable() -> None:
    fn = parse("torch + os + np")  # names are only ever variables
    assert fn.variables == ("np", "os", "torch")
    values = {name: torch.tensor(1.0, dtype=torch.float64) for name in fn.variables}
    assert float(fn.torch(values)) == 3.0


def test_limits_are_the_documented_ones() -> None:
    assert (LIMITS.max_length, LIMITS.max_nodes, LIMITS.max_depth) == (200, 150, 30)
    assert LIMITS.max_literal == 1e6
    assert parse("x*" * 74 + "x").size <= LIMITS.max_nodes
    assert math.isfinite(float(parse("1e6").torch({})))


def test_messages_exist_in_both_languages() -> None:
    err = parse_armed("2x")[0]
    assert "2*x" in error_text(err, "en")
    assert "2*x" in error_text(err, "zh")
    assert error_text(err, "zh") != error_text(err, "en")


def test_fuzz_only_accepted_or_expression_error() -> None:
    rng = np.random.default_rng(7)
    alphabet = list("xyz0123456789+-*/^()., eEsincotahlgqrpbuf_=<>[]'\"{}:;!@#$%&|~\\π²\u200b")
    accepted = refused = 0
    for _ in range(10_000):
        text = "".join(rng.choice(alphabet, size=int(rng.integers(0, 40))))
        try:
            parse(text)
            accepted += 1
        except ExpressionError:
            refused += 1
    assert accepted + refused == 10_000 and refused > 0


# ---- messages that name the real problem (issue 14) -------------------------------------------

# (text, the words the English message must contain, words it must not, the same for Chinese)
REAL_PROBLEMS = [
    ("x^^2", ["two operators in a row", "x^2"], ["starred", "Python"], ["连续两个运算符", "x^2"]),
    ("x***2", ["two operators in a row"], ["starred"], ["连续两个运算符"]),
    ("x*/2", ["two operators in a row"], ["starred"], ["连续两个运算符"]),
    (
        "log(-1)",
        ["log needs an argument greater than 0", "-1"],
        ["smaller numbers"],
        ["log 的参数必须大于 0", "-1"],
    ),
    (
        "log(0)",
        ["log needs an argument greater than 0", "got 0"],
        ["smaller numbers"],
        ["log 的参数必须大于 0"],
    ),
    (
        "sqrt(-4)",
        ["sqrt needs an argument of at least 0", "-4"],
        ["smaller numbers"],
        ["sqrt 的参数不能小于 0"],
    ),
    (
        "asin(2)",
        ["asin needs an argument between -1 and 1", "got 2"],
        ["smaller numbers"],
        ["asin 的参数必须在 -1 到 1 之间"],
    ),
    ("1/0", ["divides by zero"], ["smaller numbers"], ["除以零"]),
    ("x + 0**-1", ["divides by zero"], ["smaller numbers"], ["除以零"]),
    (
        "(-8)**(1/3)",
        ["negative number to a power that is not a whole number"],
        ["smaller numbers"],
        ["负数的非整数次幂"],
    ),
    ("exp(1000)*x", ["too large for float64", "exp(1000)"], [], ["超出了 float64"]),
    ("exp(1000) - exp(1000)", ["too large for float64", "exp(1000)"], ["nan"], ["超出了 float64"]),
]


@pytest.mark.parametrize(("text", "has", "lacks", "has_zh"), REAL_PROBLEMS)
def test_messages_name_the_real_problem_and_its_fix(
    text: str, has: list[str], lacks: list[str], has_zh: list[str]
) -> None:
    err, _ = parse_armed(text)
    assert isinstance(err, ExpressionError), f"{text!r} was accepted"
    en, zh = error_text(err, "en"), error_text(err, "zh")
    for words in has:
        assert words in en, (text, en)
    for words in lacks:
        assert words not in en, (text, en)
    for words in has_zh:
        assert words in zh, (text, zh)


def test_starred_argument_keeps_its_own_message() -> None:
    """A star with nothing before it (Python's *args) is still explained as such."""
    for text in ("*x", "sin(*x)", "(*x)"):
        err, _ = parse_armed(text)
        assert err.key == "expr.starred", (text, err.key)


# ---- LaTeX of a division (issue 14) -----------------------------------------------------------

_X = sp.Symbol("x", real=True)
LATEX_CASES = {
    "1/(1+x^2)": 1 / (1 + _X**2),
    "1/x": 1 / _X,
    "x**-1": _X**-1,
    "x^-2": _X**-2,
    "2/x": 2 / _X,
    "-x/3": -_X / 3,
    "-1/x": -1 / _X,
    "1/(x-1)": 1 / (_X - 1),
    "x/(1+x)": _X / (1 + _X),
    "sin(x)/x": sp.sin(_X) / _X,
    "x*sin(1/x)": _X * sp.sin(1 / _X),
    "1/sqrt(x)": 1 / sp.sqrt(_X),
    "(1+x)/(1-x)": (1 + _X) / (1 - _X),
    "3*x/4": 3 * _X / 4,
    "exp(-x^2)": sp.exp(-(_X**2)),
    "x^-1 + 1": _X**-1 + 1,
    "1/(1+exp(-x))": 1 / (1 + sp.exp(-_X)),
    "-x": -_X,
    "2**-x": 2**-_X,
}


@pytest.mark.parametrize(("text", "expr"), LATEX_CASES.items())
def test_latex_of_a_division_is_a_fraction_as_sympy_prints_it(text: str, expr: sp.Expr) -> None:
    """The formula under the box reads as sympy's own printer writes the same expression:
    1/(1+x²) is \\frac{1}{x^{2} + 1}, never the mixed number 1 \\frac{1}{x^{2} + 1}."""
    assert to_latex(parse(text).tree) == sp.latex(expr)


def test_too_long_text_is_refused_with_the_limit_named() -> None:
    """The page's box takes any length; the parser refuses past the limit, in both languages."""
    err, _ = parse_armed("x+" * 150 + "x")
    assert err.key == "expr.too_long"
    assert "200" in error_text(err, "en") and "301" in error_text(err, "en")
    assert "200" in error_text(err, "zh") and "301" in error_text(err, "zh")
