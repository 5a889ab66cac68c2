"""The guided lesson's progress as a link carries it: ``?step=3&done=1,2&teacher=1``.

Read by :func:`read_progress`, which keeps what it can use and names each parameter it had to
ignore (the page says so instead of failing). Nothing here trusts the text: a value is a step
number only if it is a short run of ASCII digits within the lesson.
"""

from __future__ import annotations

from dataclasses import dataclass

from .lesson import STEPS

__all__ = ["MAX_PARAM", "Progress", "read_progress"]

#: the longest value of a progress parameter that is read at all
MAX_PARAM = 40


@dataclass(frozen=True)
class Progress:
    """What a link says about the lesson: the open step (1-based), the steps done, the
    teacher's version, and the names of the parameters that were ignored."""

    step: int = 1
    done: tuple[int, ...] = ()
    teacher: bool = False
    ignored: tuple[str, ...] = ()


def _int(text: str) -> int | None:
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 3 else None


def read_progress(step: str | None, done: str | None, teacher: str | None) -> Progress:
    """Read ``?step=``, ``?done=`` and ``?teacher=`` (each None when absent).

    A value that is not a step number from 1 to len(STEPS) (for ``done``: a comma-separated
    list of them), or not "0"/"1" for ``teacher``, or longer than :data:`MAX_PARAM`, is
    ignored and its parameter named in ``ignored``; the rest of the link still counts.

    Example:
        >>> read_progress("3", "1,2", None)
        Progress(step=3, done=(1, 2), teacher=False, ignored=())
        >>> read_progress("99", "1,x", "yes").ignored
        ('step', 'done', 'teacher')
    """
    total = len(STEPS)
    ignored: list[str] = []
    number = 1
    if step is not None:
        value = _int(step) if len(step) <= MAX_PARAM else None
        if value is not None and 1 <= value <= total:
            number = value
        else:
            ignored.append("step")
    finished: tuple[int, ...] = ()
    if done is not None and done != "":
        parts = done.split(",") if len(done) <= MAX_PARAM else ["x"]
        values = [_int(p) for p in parts]
        if all(v is not None and 1 <= v <= total for v in values):
            finished = tuple(sorted(set(values)))  # type: ignore[arg-type]
        else:
            ignored.append("done")
    on = False
    if teacher is not None:
        if teacher in ("0", "1"):
            on = teacher == "1"
        else:
            ignored.append("teacher")
    return Progress(number, finished, on, tuple(ignored))
