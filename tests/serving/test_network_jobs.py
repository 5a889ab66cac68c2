"""The network page's jobs (training, analysis): what a learner reads when the server cannot
run one is plain words, never the processes behind it; and no text of the HVP page names
them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from hograd_core import HogradError
from hograd_core import network as nw
from hograd_serving import torch_helper
from hograd_serving.gate import BusyError
from hograd_ui.i18n import LANGUAGES, catalogue, error_text

#: Words for the machinery: processes, forks, helpers, copies, queues, threads, interpreters.
INTERNALS = re.compile(
    r"process|fork|helper|\bcop(y|ies)\b|queue|thread|interpreter|pipe|"
    r"进程|线程|队列|副本|分叉|管道|解释器",
    re.IGNORECASE,
)


def _failing(error: Exception):  # noqa: ANN202
    def run(*args: object, **kwargs: object) -> tuple[bool, object]:
        raise error

    return run


@pytest.mark.parametrize(
    ("error", "key"),
    [(torch_helper.ChildError("the fresh process ended without an answer", seconds=60.0),
      "hvp.net.job_failed"),
     (torch_helper.ChildError("no answer in time", seconds=60.0, timeout=True),
      "budget.job_timeout")],
)  # fmt: skip
def test_a_failed_job_is_told_in_plain_words(
    monkeypatch: pytest.MonkeyPatch, error: Exception, key: str
) -> None:
    monkeypatch.setattr(torch_helper.TORCH_HELPER, "run", _failing(error))
    with pytest.raises(HogradError) as caught:
        torch_helper.run_job("train", nw.NetConfig(steps=1), 60.0)
    assert caught.value.key == key
    assert error in (caught.value, caught.value.__cause__)  # the detail stays, for logs
    for lang in LANGUAGES:
        text = error_text(caught.value, lang)
        assert not INTERNALS.search(text), text
        assert "60" in text or key == "hvp.net.job_failed"  # the time it had


def test_a_busy_server_is_told_in_plain_words(monkeypatch: pytest.MonkeyPatch) -> None:
    @contextmanager
    def full(wait: float = 1.5) -> Iterator[None]:
        raise BusyError("budget.busy", slots=2)
        yield  # pragma: no cover

    monkeypatch.setattr(torch_helper, "heavy_work", full)
    with pytest.raises(BusyError) as caught:
        torch_helper.run_job("train", nw.NetConfig(steps=1), 60.0)
    assert caught.value.key == "hvp.net.busy"
    for lang in LANGUAGES:
        assert not INTERNALS.search(error_text(caught.value, lang))


def test_a_refusal_from_the_job_passes_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch_helper.TORCH_HELPER, "run", lambda *args, **kwargs: (False, None))
    with pytest.raises(HogradError, match="over the limit of 120,000"):
        torch_helper.run_job("train", nw.NetConfig(hidden=(512, 512, 512)), 60.0)


def test_no_text_of_the_hvp_page_names_the_machinery() -> None:
    for lang in LANGUAGES:
        table = catalogue(lang)
        named = {k: v for k, v in table.items() if k.startswith("hvp.") and INTERNALS.search(v)}
        assert not named
