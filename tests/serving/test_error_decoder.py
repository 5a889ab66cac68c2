"""The error decoder places every message the graph page's gallery really raises or warns
(run as the page runs them: the isolated cases in a fresh process), exactly, and the gallery
case it then shows raises a message of the same entry. The decoder on messages outside the
gallery: tests/core/test_decoder.py."""

from __future__ import annotations

import pytest

from hograd_core.flaglab.cases import CASES, run_case
from hograd_core.flaglab.decoder import ENTRIES, EXACT, decode, signatures


@pytest.fixture(scope="module")
def outcomes() -> dict:
    """Every variant run as the page runs it: the isolated cases (anomaly mode, a warning
    PyTorch gives once per process) in a fresh process, so an earlier test in this process
    that already drew the warning cannot take it from the case."""
    from hograd_serving.jobs import run_isolated

    return {
        (c, v): run_case(c, v, isolate=run_isolated)
        for c, case in CASES.items()
        for v in case.variants
    }


def test_every_case_that_raises_or_warns_has_a_message(outcomes) -> None:
    assert {c for c, _, _ in signatures(outcomes)} == set(CASES)


def test_every_gallery_message_is_placed_exactly(outcomes) -> None:
    for case, variant, message in signatures(outcomes):
        got = decode(message)
        assert got is not None and got.whole, (case, variant, message)
        if got.id != "none_gradient":  # Python's NoneType words: placed, said to be a guess
            assert got.sure == EXACT, (case, variant, message)


def test_the_case_an_entry_shows_raises_that_entrys_message(outcomes) -> None:
    found = {decode(m).id: (c, v) for c, v, m in signatures(outcomes)}
    shown = {e.id: (e.case, e.variant) for e in ENTRIES if e.case}
    for entry, (case, variant) in shown.items():
        messages = [m for c, v, m in signatures(outcomes) if (c, v) == (case, variant)]
        assert any(decode(m).id == entry for m in messages), (entry, case, variant)
    assert set(found) <= set(shown)  # every gallery message's entry shows a case
