"""Nicknames that look alike are one name, a typed name may not mimic the app's suffix, and
joins are bounded per class and per browser (SQLite and PostgreSQL).

The oracles: the look-alike letters are checked against Unicode's own names for them
(``unicodedata.name``: "CYRILLIC CAPITAL LETTER A" looks like "LATIN CAPITAL LETTER A"), and
the counts against the joins the test itself made, read back with plain SQL."""

from __future__ import annotations

import unicodedata
from random import Random

import pytest
import sqlalchemy as sa

from hograd_labs.classroom import compute as cc
from tests.english import raises
from tests.labs.conftest import Db

NOW = 1_800_000_000.0


@pytest.fixture()
def db(plain_db: Db) -> tuple[sa.Engine, Db]:
    cc.create_schema(plain_db.engine)
    return plain_db.engine, plain_db


#: (a name with look-alike letters, the Latin name it looks like)
LOOK_ALIKES = [
    ("\u0410da", "Ada"),  # Cyrillic А
    ("\u0391da", "Ada"),  # Greek Α
    ("\uff21da", "Ada"),  # full-width Ａ (NFKC)
    ("ADA", "Ada"),
    ("B\u043e\u0432", "Bob"),  # Cyrillic о and в (В folded)
    ("\u0420\u0435\u0440", "Pep"),  # Cyrillic Р, е, р
    ("Ke\u0280in", "Kevin"),  # not a look-alike of the table: stays apart
]


def test_the_table_maps_letters_to_the_latin_letter_of_their_name() -> None:
    """Each Cyrillic or Greek entry of LOOK_ALIKES maps to a Latin letter whose capital looks
    like its capital: the same letter name (A, E, O, ...) or a shape pair named here."""
    shapes = {"VE": "B", "EN": "H", "ETA": "H", "NU": "N", "UPSILON": "Y", "U": "Y", "ER": "P",
              "RHO": "P", "ES": "C", "HA": "X", "CHI": "X", "SOFT SIGN": "B", "ZETA": "Z",
              "BETA": "B", "IOTA": "I", "KAPPA": "K", "MU": "M", "TAU": "T", "OMICRON": "O",
              "EPSILON": "E", "ALPHA": "A", "IE": "E", "IO": "E", "KA": "K", "EM": "M",
              "TE": "T", "BYELORUSSIAN-UKRAINIAN I": "I", "YI": "I", "JE": "J", "DZE": "S",
              "KOMI DE": "D", "QA": "Q", "WE": "W", "SHHA": "H", "PALOCHKA": "L",
              "STRAIGHT U": "Y", "O": "O", "A": "A", "LUNATE SIGMA SYMBOL": "C",
              "YOT": "J"}  # fmt: skip
    for code, latin in cc.LOOK_ALIKES.items():
        ch = chr(code)
        name = unicodedata.name(ch)
        if not name.startswith(("CYRILLIC", "GREEK")):
            continue
        letter = name.split(" LETTER ")[-1].replace("SMALL ", "").replace("GREEK ", "")
        letter = letter.removeprefix("SMALL ").strip()
        assert shapes.get(letter, "?") == latin.upper(), (name, latin)


@pytest.mark.parametrize(("mimic", "plain"), LOOK_ALIKES)
def test_a_look_alike_of_a_name_taken_gets_a_suffix(
    db: tuple[sa.Engine, Db], mimic: str, plain: str
) -> None:
    engine, _ = db
    code = cc.open_class(engine, NOW, rng=Random(1))
    assert cc.join(engine, code, plain, NOW).nickname == plain
    second = cc.join(engine, code, mimic, NOW).nickname
    if cc.skeleton(mimic) == cc.skeleton(plain):
        assert second == unicodedata.normalize("NFKC", mimic) + " 2"
    else:
        assert second == mimic and plain == "Kevin"


@pytest.mark.parametrize("typed", ["Ada 2", "Ada  7", "Ada \uff12", "Ada\u00a03", "x 100"])
def test_a_typed_name_that_mimics_the_suffix_is_refused(typed: str) -> None:
    with raises(cc.ClassroomError, match="space and a number"):
        cc.clean_nickname(typed)


@pytest.mark.parametrize("typed", ["Ada2", "R2 D2x", "7", "Team 2b", "2 Ada"])
def test_a_number_that_is_no_suffix_is_kept(typed: str) -> None:
    assert cc.clean_nickname(typed) == typed


def test_joins_are_bounded_per_browser(db: tuple[sa.Engine, Db]) -> None:
    engine, raw = db
    code = cc.open_class(engine, NOW, rng=Random(2))
    for i in range(cc.MAX_PER_BROWSER):
        cc.join(engine, code, f"s{i}", NOW, client="cookie:one")
    with raises(cc.ClassroomError, match=str(cc.MAX_PER_BROWSER)):
        cc.join(engine, code, "again", NOW, client="cookie:one")
    cc.join(engine, code, "other", NOW, client="cookie:two")  # another browser still joins
    other = cc.open_class(engine, NOW, rng=Random(3))
    cc.join(engine, other, "s0", NOW, client="cookie:one")  # the bound is per class
    assert raw.rows(f"SELECT count(*) FROM classroom_students WHERE code = '{code}'") == [
        (cc.MAX_PER_BROWSER + 1,)
    ]
    stored = {r[0] for r in raw.rows("SELECT client FROM classroom_students")}
    assert "cookie:one" not in stored and len(stored) == 2  # hashes, not the ids


def test_a_class_is_bounded(db: tuple[sa.Engine, Db], monkeypatch: pytest.MonkeyPatch) -> None:
    engine, raw = db
    monkeypatch.setattr(cc, "MAX_STUDENTS", 12)
    code = cc.open_class(engine, NOW, rng=Random(4))
    refused = 0
    for i in range(40):  # a script's joins, each a fresh session
        try:
            cc.join(engine, code, "bot", NOW, client=f"session:{i}")
        except cc.ClassroomError as err:
            assert err.key == "classroom.error.full"
            refused += 1
    assert refused == 40 - 12
    assert raw.rows("SELECT count(*) FROM classroom_students") == [(12,)]
