"""The guided lesson's progress as a link carries it (``?step=3&done=1,2``), and the teacher's
key that opens the teacher's version (``?key=...``).

Read by :func:`read_progress`, which keeps what it can use and names each parameter it had to
ignore (the page says so instead of failing). Nothing here trusts the text: a value is a step
number only if it is a short run of ASCII digits within the lesson. :func:`key_matches`
compares a key from a link with the server's in constant time. Plain Python, no Streamlit:
:mod:`.lesson_state` reads the link with these on every page; the number of steps comes from
the lesson (hograd_labs/lesson/compute.py), passed in by whoever calls.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

__all__ = ["MAX_KEY", "MAX_PARAM", "Progress", "key_matches", "read_progress", "token_matches"]

#: the longest value of a progress parameter that is read at all
MAX_PARAM = 40


@dataclass(frozen=True)
class Progress:
    """What a link says about the lesson: the open step (1-based), the steps done, and the
    names of the parameters that were ignored."""

    step: int = 1
    done: tuple[int, ...] = ()
    ignored: tuple[str, ...] = ()


def _int(text: str) -> int | None:
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 3 else None


def read_progress(step: str | None, done: str | None, total: int) -> Progress:
    """Read ``?step=`` and ``?done=`` (each None when absent) of a lesson of ``total`` steps.

    A value that is not a step number from 1 to ``total`` (for ``done``: a comma-separated
    list of them), or longer than :data:`MAX_PARAM`, is ignored and its parameter named in
    ``ignored``; the rest of the link still counts.

    Example:
        >>> read_progress("3", "1,2", 7)
        Progress(step=3, done=(1, 2), ignored=())
        >>> read_progress("99", "1,x", 7).ignored
        ('step', 'done')
    """
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
    return Progress(number, finished, tuple(ignored))


#: the longest key from a link that is compared at all (a longer one is wrong)
MAX_KEY = 200


def _digest(text: str) -> bytes:
    # any text, lone surrogates included, as bytes of one fixed length
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def key_matches(given: str | None, key: str | None) -> bool:
    """Whether the key from a link, ``given``, is the server's teacher key ``key``.

    No server key (None or blank) matches nothing. The two are compared as SHA-256 digests
    with :func:`hmac.compare_digest`: the time taken does not depend on where they differ,
    nor on the length of the right key.

    Example:
        >>> key_matches("s3cret-key", "s3cret-key"), key_matches("s3cret", "s3cret-key")
        (True, False)
        >>> key_matches("", ""), key_matches(None, "k")
        (False, False)
    """
    if not key or not key.strip() or given is None or len(given) > MAX_KEY:
        return False
    return hmac.compare_digest(_digest(given), _digest(key))


def token_matches(given: str | None, key: str | None) -> bool:
    """Whether a session token from the lecturer's cookie (hograd_serving/teacher_door.py) is
    the token of the server's key ``key``: compared as :func:`key_matches` compares keys.

    Example:
        >>> from hograd_serving.teacher_key import session_token
        >>> token_matches(session_token("k"), "k"), token_matches(session_token("k"), "j")
        (True, False)
    """
    if not key or not key.strip() or given is None or len(given) > MAX_KEY:
        return False
    from hograd_serving.teacher_key import session_token  # only a page with a token gets here

    return hmac.compare_digest(_digest(given), _digest(session_token(key)))
