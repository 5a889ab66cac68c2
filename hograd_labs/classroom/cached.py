"""The class database through Streamlit's ``st.connection("sql")``, made ready once a process.

Where the database is, first found first:

1. ``[connections.sql]`` in Streamlit's secrets (``url = "postgresql+psycopg://..."``): what a
   deployment with replicas or Community Cloud uses (docs/deploy.md);
2. the environment variable ``HOGRAD_CLASSROOM_URL`` (a SQLAlchemy URL), for Docker;
3. a SQLite file, ``~/.hograd/classroom.sqlite``: ``make run`` needs nothing else.

Every call goes through :func:`call`, which turns a failure of the database into a
:class:`ClassroomError` the page shows (the lesson goes on without the class). The students'
pages look at their class twice a second or so (a revealed answer, a shared view, a pause):
:func:`look` shares one answer of the database among every session of the process for
:data:`LOOK_AGE` seconds, so that a class costs the database a few queries a second per
replica however many students it has.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import streamlit as st
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError
from streamlit.errors import StreamlitAPIException

from . import compute

__all__ = ["LOOK_AGE", "URL_VARIABLE", "call", "default_url", "engine", "look"]

URL_VARIABLE = "HOGRAD_CLASSROOM_URL"
T = TypeVar("T")
#: How old an answer :func:`look` hands out may be, in seconds: what a write on another replica
#: adds, at most, to a student's wait (a write in this process is seen at once).
LOOK_AGE = 0.1
#: The reads :func:`look` may share; any other function called through :func:`call` may
#: write, and makes every session's next look ask the database again
READS = frozenset({compute.find_class, compute.live})
#: (database, fn, code) -> (when, answer): a class code of another database (a test's, a new
#: deployment's) is another class
_LOOKED: dict[tuple[Engine, Callable, str], tuple[float, object]] = {}
_LOOKED_LOCK = threading.Lock()
_WRITES = [0]  # calls of a function outside READS so far (under the lock)


def default_url() -> str:
    """The SQLite file used when neither the secrets nor the environment name a database."""
    folder = Path.home() / ".hograd"
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'classroom.sqlite'}"


def _has_sql_secret() -> bool:
    if not st.secrets.load_if_toml_exists():
        return False
    section = st.secrets.get("connections", {})
    return hasattr(section, "get") and section.get("sql") is not None


@st.cache_resource(show_spinner=False)
def _ready(url: str | None) -> Engine:
    """The connection's engine with the tables in place and the expired classes gone; once a
    process per database (a failure is not cached: the next call tries again)."""
    if url is None:
        conn = st.connection("sql", type="sql")
    else:
        # SQLite waits up to 15 s for another session's write instead of failing at once
        extra = {"connect_args": {"timeout": 15}} if url.startswith("sqlite") else {}
        conn = st.connection("sql", type="sql", url=url, **extra)
    engine = conn.engine
    compute.create_schema(engine)
    compute.purge(engine, time.time())
    return engine


def engine() -> Engine:
    """The class database's engine (see the module's docstring for where it is)."""
    url = None if _has_sql_secret() else os.environ.get(URL_VARIABLE) or default_url()
    return _ready(url)


def call(fn: Callable[..., T], *args: object) -> T:
    """``fn(engine, *args)``; a database that fails is a ClassroomError, never a traceback.

    Raises:
        ClassroomError: the database failed ("classroom.error.storage"), or ``fn`` refused.
    """
    try:
        return fn(engine(), *args)
    except (SQLAlchemyError, OSError, StreamlitAPIException) as err:  # a bad URL, too
        raise compute.ClassroomError("classroom.error.storage") from err
    finally:
        if fn not in READS:  # a write (or its attempt): every session's next look is fresh
            with _LOOKED_LOCK:
                _LOOKED.clear()
                _WRITES[0] += 1


def look(fn: Callable[[Engine, str, float], T], code: str) -> T:
    """``call(fn, code, time.time())`` for a read in :data:`READS`, answered from this
    process's last answer for ``(fn, code)`` on the same database when it is under
    :data:`LOOK_AGE` seconds old and no write went through :func:`call` since. A failure is
    not kept (the next look asks again).

    Raises:
        ClassroomError: as :func:`call`.
    """
    assert fn in READS, f"{fn.__name__} writes: call it with call()"
    try:
        key = (engine(), fn, code)
    except (SQLAlchemyError, OSError, StreamlitAPIException) as err:  # as call() says it
        raise compute.ClassroomError("classroom.error.storage") from err
    asked = time.monotonic()
    with _LOOKED_LOCK:
        kept, writes = _LOOKED.get(key), _WRITES[0]
        if kept is not None and asked - kept[0] < LOOK_AGE:
            return kept[1]  # type: ignore[return-value]
    answer = call(fn, code, time.time())
    with _LOOKED_LOCK:
        if _WRITES[0] == writes:  # no write ended meanwhile (one ending later clears it)
            if len(_LOOKED) > 1024:  # classes come and go: forget the old ones
                _LOOKED.clear()
            _LOOKED[key] = (asked, answer)  # dated when asked
    return answer
