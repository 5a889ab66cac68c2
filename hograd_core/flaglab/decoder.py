"""The error decoder: a pasted PyTorch message, matched to the classic case that produces it.

The signatures are the messages the cases really raised or warned (their runs, passed in), so
the decoder knows exactly what today's PyTorch says. Matching is on words, not characters:
both texts are cut to :data:`MAX_CHARS`, lowercased and split into words and numbers; every
number becomes ``#`` and every autograd function name (``PowBackward0``, ``Mul``) the word
``fn``, so the same message about another shape, version or function still matches. Only runs
of at least :data:`RUN` consecutive words found in order count (common words scattered through
unrelated text do not). A case matches when those runs hold at least :data:`SHARE` of its
message's words, or when one run is :data:`LINE` words long (the first line of a long message,
pasted alone); among several, the one with most words found wins. The pasted text is only
read, never rendered.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from difflib import SequenceMatcher

from .record import FlagOutcome

__all__ = ["LINE", "MAX_CHARS", "Match", "decode", "signatures", "words"]

MAX_CHARS = 20_000  # a long traceback fits; the rest of a longer text is not read
RUN = 3  # words in a row that count as a match
SHARE = 0.6  # part of the message's words that must match
LINE = 8  # or this many words in a row

_WORD = re.compile(r"[a-z_]+|\d+")
_FUNCTION = re.compile(r"\b\w*backward\d*\b|\b(?:mul|add|sub|div|pow)\b")
_TENSOR_TYPE = re.compile(r"\btorch\.(?:cuda\.)?\w*tensor\b")


@dataclass(frozen=True)
class Match:
    """The case a message came from.

    Attributes:
        case, variant: the gallery case and its variant whose run gave the message.
        message: that run's message, as PyTorch wrote it ("RuntimeError: ...").
        found, total: how many of the message's words were found in the text in order (in
            runs of :data:`RUN` or more), and how many it has.
        also: other (case, variant) pairs whose runs give the same message.
    """

    case: str
    variant: str
    message: str
    found: int
    total: int
    also: tuple[tuple[str, str], ...] = ()


def words(text: str) -> list[str]:
    """The words of ``text`` as matched: lowercased, numbers and function names generalised."""
    text = text[:MAX_CHARS].lower()
    text = _TENSOR_TYPE.sub(" tensortype ", _FUNCTION.sub(" fn ", text))
    return ["#" if w.isdigit() else w for w in _WORD.findall(text)]


def signatures(outcomes: Mapping[tuple[str, str], FlagOutcome]) -> list[tuple[str, str, str]]:
    """(case, variant, message) for every error of the runs, in the order given, and the
    warnings of a case none of whose variants raises (the reference-cycle warning of
    ``backward_accumulates``). The warnings of a case that raises are left out: anomaly
    detection's "Error detected in ..." comes with any error, not only with the case's."""
    raising = {c for (c, _), o in outcomes.items() if any(s.error_type for s in o.steps)}
    found = []
    for (case, variant), outcome in outcomes.items():
        found += [
            (case, variant, f"{s.error_type}: {s.error}") for s in outcome.steps if s.error_type
        ]
        if case not in raising:
            found += [(case, variant, message) for message in outcome.warnings]
    return found


def _score(message: list[str], text: list[str]) -> tuple[bool, int, float]:
    """(whether it matches, words found, their share of the message's)."""
    matcher = SequenceMatcher(None, message, text, autojunk=False)
    runs = [b.size for b in matcher.get_matching_blocks() if b.size >= RUN]
    share = sum(runs) / len(message) if message else 0.0
    longest = max(runs, default=0)
    return share >= SHARE or longest >= min(LINE, len(message)), sum(runs), share


def decode(text: str, outcomes: Mapping[tuple[str, str], FlagOutcome]) -> Match | None:
    """The case whose message ``text`` contains (most words found first), or None if none does.

    Args:
        text: what the learner pasted: a message, maybe inside a traceback.
        outcomes: the gallery's runs by (case, variant), e.g. from
            :func:`hograd_core.flaglab.cases.run_case`.
    """
    pasted = words(text)
    if not pasted:
        return None
    scored: dict[str, list] = {}  # message words -> [score, (case, variant, message), ...]
    for case, variant, message in signatures(outcomes):
        key = " ".join(words(message))
        if key not in scored:
            scored[key] = [_score(key.split(), pasted)]
        scored[key].append((case, variant, message))
    best = max(scored.values(), key=lambda entry: entry[0], default=None)
    if best is None or not best[0][0]:
        return None
    (case, variant, message), *others = best[1:]
    also = tuple(dict.fromkeys((c, v) for c, v, _ in others if (c, v) != (case, variant)))
    return Match(case, variant, message, best[0][1], len(words(message)), also)
