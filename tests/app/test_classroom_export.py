"""The class's export as a lecturer opens it in a spreadsheet (issue 48): step names, verdicts
and a choice's answer in words in the class's language, "yes"/"no", and the lecturer's local
time in ISO 8601 with its offset; no translation key, no Unix seconds.

The oracles: the translation catalogue read directly (hograd_ui.i18n.tr) for the words, and
``datetime.fromisoformat`` with the zone's own offset for the times."""

from __future__ import annotations

import csv
import io
import re
from datetime import datetime
from pathlib import Path
from random import Random
from zoneinfo import ZoneInfo

import pytest
import sqlalchemy as sa

from hograd_labs.classroom import compute as cc
from hograd_labs.classroom import page as room
from hograd_labs.lesson.compute import STEPS
from hograd_ui.i18n import tr

NOW = 1_800_000_000.0  # 2027-01-15 08:00:00 UTC
TITLES = tuple(s.title for s in STEPS)


@pytest.mark.parametrize(("lang", "zone"), [("en", "Europe/Berlin"), ("zh", "Asia/Shanghai")])
def test_the_export_is_in_words_and_local_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lang: str, zone: str
) -> None:
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'c.sqlite'}")
    cc.create_schema(engine)
    code = cc.open_class(engine, NOW, rng=Random(1), lang=lang)
    assert cc.find_class(engine, code, NOW).lang == lang
    ann = cc.join(engine, code, "ann", NOW)
    trap = (("value", "8"),)
    cc.record_check(engine, ann, 1, "8", False, "lesson.trap.value", trap, NOW)
    cc.record_check(engine, ann, 1, "12", True, "lesson.check.right", (), NOW + 61)
    option = STEPS[3].exercise.options[1]  # a choice, stored as its option's key
    cc.record_check(engine, ann, 4, option, False, "lesson.check.wrong_choice", (), NOW + 3600)
    monkeypatch.setattr(room, "_zone", lambda: ZoneInfo(zone))
    text = cc.export_csv(engine, code, room._words(lang, TITLES))
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == [tr(c, lang) for c in room.CSV_COLUMNS]
    names = [r[1] for r in rows[1:]]
    assert names == [tr(TITLES[0], lang), tr(TITLES[0], lang), tr(TITLES[3], lang)]
    assert rows[1][4] == tr("lesson.trap.value", lang, value="8")
    assert rows[2][4] == tr("lesson.check.right", lang)
    assert rows[3][2] == tr(option, lang)
    assert [r[3] for r in rows[1:]] == [tr(f"classroom.csv.{w}", lang) for w in ("no", "yes", "no")]
    for row, at in zip(rows[1:], (NOW, NOW + 61, NOW + 3600), strict=True):
        when = datetime.fromisoformat(row[5])
        assert when.timestamp() == at
        assert when.utcoffset() == datetime.fromtimestamp(at, ZoneInfo(zone)).utcoffset()
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", row[5])
    assert not re.search(r"\blesson\.|\bclassroom\.", text)  # no translation key
    assert not re.search(r"\b1[0-9]{9}\b", text)  # no Unix seconds
    engine.dispose()


def test_a_verdict_whose_values_were_not_kept_is_named_plainly() -> None:
    words = room._words("en", TITLES)
    assert words.verdict("lesson.check.high", ()) == tr("classroom.slip.other")  # no {value}
    assert words.verdict("lesson.check.high", (("value", "13"),)) == tr(
        "lesson.check.high", value="13"
    )
    assert words.verdict("no.such.key", ()) == tr("classroom.slip.other")
    assert words.answer("12") == "12" and words.answer("no.such.key") == "no.such.key"
    assert words.step(99) == "99"
