"""What a learner reads when the server cannot help at once: plain words ("the server is busy,
try again in a few seconds"), never the machinery behind it (processes, helpers, queues), in
both languages; and the load benchmark still recognises the busy message."""

from __future__ import annotations

import re

import pytest

from benchmarks.load import BUSY
from hograd_ui.i18n import LANGUAGES, catalogue, tr

#: Words for the machinery: processes, forks, helpers, copies, queues, threads, interpreters.
INTERNALS = re.compile(
    r"process|fork|helper|\bcop(y|ies)\b|queue|thread|interpreter|pipe|slot|"
    r"进程|线程|队列|副本|分叉|管道|解释器",
    re.IGNORECASE,
)


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_budget_derivatives_and_home_texts_name_no_internals(lang: str) -> None:
    table = catalogue(lang)
    named = {
        k: v
        for k, v in table.items()
        if k.split(".")[0] in ("budget", "deriv", "home") and INTERNALS.search(v)
    }
    assert not named


def test_the_busy_message_is_short_and_the_load_benchmark_knows_it() -> None:
    en, zh = tr("budget.busy", "en", slots=2), tr("budget.busy", "zh", slots=2)
    assert en == "The server is busy. Try again in a few seconds."
    assert "过几秒再试" in zh and "2" not in zh and "2" not in en  # no count of slots
    assert BUSY[0] in en and BUSY[1] in zh
