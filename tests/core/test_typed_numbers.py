"""The lesson's answer boxes read as the learner typed: every form of a number is read as the
number Python's float() reads from its plain ASCII spelling (the oracle), and whatever cannot
be read is refused with a message naming the box, never changed into another number."""

from __future__ import annotations

import random

import pytest

from hograd_core.errors import AnswerError
from hograd_core.typed_numbers import MAX_CHARS, read_numbers, show_numbers
from tests.english import raises

FULL_WIDTH = str.maketrans("0123456789,-+.()", "０１２３４５６７８９，－＋．（）")
MINUSES = ["-", "\u2212", "\u2013", "\u2012", "\uff0d", "\ufe63"]


def _spellings(plain: str) -> list[str]:
    """The same number typed in the ways a learner might, from its ASCII spelling."""
    forms = [plain, plain.translate(FULL_WIDTH), f" {plain} "]
    forms += [plain.replace("-", m) for m in MINUSES]
    return forms


def test_random_numbers_in_every_spelling_read_as_float_reads_them() -> None:
    rng = random.Random(36)
    for _ in range(300):
        value = rng.choice([rng.uniform(-1e3, 1e3), rng.randint(-99, 99), rng.uniform(-1, 1)])
        plain = f"{value:.{rng.randint(0, 6)}f}"
        for text in _spellings(plain):
            assert read_numbers([text], 1).values == (float(plain),), text


@pytest.mark.parametrize("minus", MINUSES)
def test_every_minus_sign_keeps_the_sign(minus: str) -> None:
    assert read_numbers([f"{minus}12"], 1).values == (-12.0,)
    assert read_numbers(["1", f"{minus}1"], 2).values == (1.0, -1.0)


@pytest.mark.parametrize(
    "text",
    [
        "1,-1",
        "(1, -1)",
        "[1, -1]",
        "1，-1",
        "（1，−1）",
        "{1; -1}",
        "1 -1",
        "1、−1",
        "⟨1, −1⟩",
        "１，－１",
        "( 1 , \u2212 1 )".replace("\u2212 ", "\u2212"),
    ],
)
def test_a_vector_pasted_in_one_box_is_spread(text: str) -> None:
    for boxes in ([text, ""], ["", text], [text, None]):
        reading = read_numbers(boxes, 2)
        assert reading.values == (1.0, -1.0) and reading.spread


def test_a_decimal_comma_where_it_can_be_nothing_else() -> None:
    assert read_numbers(["12,0"], 1).values == (12.0,)
    assert read_numbers(["12,0"], 1).decimal_comma
    assert read_numbers(["−0,25"], 1).values == (-0.25,)
    assert read_numbers(["1,2345"], 1).values == (1.2345,)
    assert read_numbers(["0,5", "−1,5"], 2).values == (0.5, -1.5)  # one number per box
    assert read_numbers(["0,5", ""], 2).values == (0.0, 5.0)  # a pasted pair: two numbers
    with raises(AnswerError, match="thousands separator"):
        read_numbers(["1,500"], 1)  # 1.5 or 1500: refused, not guessed


@pytest.mark.parametrize(
    ("boxes", "size", "key", "params"),
    [
        (["abc"], 1, "lesson.read.unreadable", {"box": 1, "index": 1}),
        (["12 apples"], 1, "lesson.read.unreadable", {"box": 1, "index": 2}),
        (["−"], 1, "lesson.read.unreadable", {"box": 1, "index": 1}),
        (["1--1"], 1, "lesson.read.unreadable", {"box": 1, "index": 1}),
        (["((1))"], 1, "lesson.read.unreadable", {"box": 1, "index": 1}),
        (["12, 0"], 1, "lesson.read.count", {"box": 1, "got": 2, "expected": 1}),
        (["1e400"], 1, "lesson.read.too_large", {"box": 1, "index": 1}),
        (["nan"], 1, "lesson.read.unreadable", {"box": 1, "index": 1}),
        (["inf"], 1, "lesson.read.unreadable", {"box": 1, "index": 1}),
        (["1", ""], 2, "lesson.read.missing", {"box": 2, "size": 2}),
        (["", "1"], 2, "lesson.read.missing", {"box": 1, "size": 2}),
        (["1, 2, 3", ""], 2, "lesson.read.count", {"box": 1, "got": 3, "expected": 2}),
        (["1,-1", "2"], 2, "lesson.read.count_one", {"box": 1, "got": 2, "size": 2}),
        (["1", "2,500"], 2, "lesson.read.comma", {"box": 2}),
        (["1" * (MAX_CHARS + 1)], 1, "lesson.read.too_long", {"box": 1}),
    ],
)
def test_what_cannot_be_read_is_refused_by_name(
    boxes: list[str], size: int, key: str, params: dict
) -> None:
    with pytest.raises(AnswerError) as caught:
        read_numbers(boxes, size)
    assert caught.value.key == key
    assert params.items() <= caught.value.params.items()


def test_nothing_typed_is_no_reading() -> None:
    assert read_numbers(["", "  "], 2) is None
    assert read_numbers([None], 1) is None


def test_the_echo_prints_what_was_read() -> None:
    assert show_numbers((12.0,)) == "12"
    assert show_numbers((1.0, -1.0)) == "(1, \u22121)"
    assert show_numbers((0.1,)) == "0.1"
    assert show_numbers((-0.25, 1e-7)) == "(\u22120.25, 1e\u221207)"
