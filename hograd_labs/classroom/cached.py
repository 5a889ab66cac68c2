"""The class database through Streamlit's ``st.connection("sql")``, made ready once a process.

Where the database is, first found first:

1. ``[connections.sql]`` in Streamlit's secrets (``url = "postgresql+psycopg://..."``): what a
   deployment with replicas or Community Cloud uses (docs/deploy.md);
2. the environment variable ``HOGRAD_CLASSROOM_URL`` (a SQLAlchemy URL), for Docker;
3. a SQLite file, ``~/.hograd/classroom.sqlite``: ``make run`` needs nothing else.

Every call goes through :func:`call`, which turns a failure of the database into a
:class:`ClassroomError` the page shows (the lesson goes on without the class).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import streamlit as st
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError
from streamlit.errors import StreamlitAPIException

from . import compute

__all__ = ["URL_VARIABLE", "call", "default_url", "engine"]

URL_VARIABLE = "HOGRAD_CLASSROOM_URL"
T = TypeVar("T")


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
