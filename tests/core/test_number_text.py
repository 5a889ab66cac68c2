"""Points and vectors typed as text are bounded by length before they are read (issue 35,
finding 3): ``"pi,"`` repeated over 20 MB cost a minute of CPU and 800 MB before.

The bound is :func:`hograd_core.hessian.numbers_limit` of the function's variable count, checked
in :func:`hograd_core.hvp_graph.numbers` (the graph page's boxes and their links, the command
line's ``graph``) and the command line's own number lists (``hvp --at/--vector``,
``derivatives --at``, ``--grid``). "Before splitting" is checked by a text that fails the test
if anything splits or strips it; never by a time.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from hograd_cli.__main__ import main
from hograd_core import parse
from hograd_core.errors import ArgumentError
from hograd_core.hessian import NUMBER_CHARS, numbers_limit
from hograd_core.hvp_graph import hvp_graph, numbers
from hograd_core.language import LIMITS
from hograd_core.nested_autograd import BUDGET
from hograd_ui.i18n import error_text
from tests.english import raises


class Untouchable(str):
    """Text that fails the test if it is split, stripped or scanned for a comma."""

    def split(self, *args: object, **kwargs: object) -> list[str]:
        raise AssertionError("the text was split before its length was checked")

    def strip(self, *args: object) -> str:
        raise AssertionError("the text was stripped before its length was checked")

    def __contains__(self, item: object) -> bool:
        raise AssertionError("the text was scanned before its length was checked")


def names(n: int) -> str:
    return "+".join(f"w{i + 1}" for i in range(n))


#: Long texts of the kinds an attacker sends: the repeated constant of the report, blanks,
#: commas only, one endless number, an endless expression, a valid point then padding.
LONG = [
    "pi," * 1000,
    " " * 5000,
    "," * 5000,
    "1" * 5000,
    "+".join(["1"] * 3000),
    "1, 2" + " " * 5000,
    "1, 2" + ",0" * 3000,
    "sqrt(2)/2," * 500,
]


@pytest.mark.parametrize("n", [1, 2, 3, LIMITS.max_variables])
@pytest.mark.parametrize("text", LONG)
def test_text_longer_than_the_variables_need_is_refused_before_it_is_split(
    n: int, text: str
) -> None:
    fn = parse(names(n))
    text = text if len(text) > numbers_limit(n) else text * 100
    for what in ("point", "vector"):
        with pytest.raises(ArgumentError) as info:
            numbers(Untouchable(text), what, fn)
        err = info.value
        assert err.key == "budget.numbers_too_long"
        english, chinese = error_text(err, "en"), error_text(err, "zh")
        assert f"{NUMBER_CHARS} characters per number, {numbers_limit(n):,} in all" in english
        assert f"got {len(text):,}" in english
        assert f"总共最多 {numbers_limit(n):,} 个" in chinese and f"{len(text):,}" in chinese
        assert english.startswith(what)


def test_the_limit_fits_every_variable_written_out_in_full() -> None:
    """The longest float64 text (17 significant digits, a three-digit exponent, signs) and a
    constant expression both fit, with the spaces people type after commas."""
    for n in (1, 2, LIMITS.max_variables):
        fn = parse(names(n))
        full = ", ".join(["-1.2345678901234567e-300"] * n)
        assert np.allclose(numbers(full, "point", fn), -1.2345678901234567e-300)
        exprs = ", ".join(["-sqrt(2)/2*pi + exp(1)/3 - sin(pi/7)**2"] * n)
        assert len(exprs) <= numbers_limit(n)
        assert numbers(exprs, "vector", fn).shape == (n,)
        padded = ",".join([" " * (NUMBER_CHARS - 1) + "1"] * n)  # exactly NUMBER_CHARS each
        assert len(padded) <= numbers_limit(n)
        assert list(numbers(padded, "point", fn)) == [1.0] * n


def test_at_the_limit_the_count_is_what_is_refused() -> None:
    """Text within the limit is read: three short numbers for two variables get the count's
    message, not the length's."""
    fn = parse("x*y")
    with pytest.raises(Exception) as info:
        numbers("1, 2, 3", "point", fn)
    assert info.value.key == "budget.point_size"


def test_the_graph_of_a_long_point_is_refused() -> None:
    with raises(ArgumentError, match="at most 40 characters per number, 84 in all"):
        hvp_graph(parse("w1**2*sin(w2)"), "pi," * 200_000, "0.5, 1")


def run_cli(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().err


@pytest.mark.parametrize("option", ["--at", "--vector"])
@pytest.mark.parametrize("command", ["hvp", "graph"])
def test_the_command_line_refuses_a_long_point_or_vector(
    capsys: pytest.CaptureFixture, command: str, option: str
) -> None:
    args = {"--at": "1,2", "--vector": "0.5,1"}
    args[option] = "pi," * 100_000
    flat = [item for pair in args.items() for item in pair]
    code, err = run_cli(capsys, command, "x*y", *flat)
    assert code == 2
    what = "point" if option == "--at" else "vector"
    assert f"error: {what}: at most 40 characters per number, 84 in all" in err


def test_the_command_line_still_reads_constants_in_hvp(capsys: pytest.CaptureFixture) -> None:
    code = main(["hvp", "w1**2*sin(w2)", "--at", "1, pi/2", "--vector", "0.5,1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["hvp"] == pytest.approx([1.0, -1.0])


def test_the_command_lines_point_lists_are_bounded(capsys: pytest.CaptureFixture) -> None:
    limit = numbers_limit(BUDGET.max_points)
    code, err = run_cli(capsys, "derivatives", "x**3", "--at", "1," * (limit // 2 + 1))
    assert code == 2 and f"error: --at: at most 40 characters per number, {limit:,} in all" in err
    code, err = run_cli(capsys, "derivatives", "x**3", "--grid", "1" * 5000 + ":3:10")
    assert code == 2 and "error: --grid: at most 40 characters per number, 42 in all" in err
