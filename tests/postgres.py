"""A throwaway PostgreSQL cluster for the tests: Debian's postgresql 15 server binaries, a
fresh data directory in a temporary folder, a free port on 127.0.0.1, trust authentication,
stopped and deleted afterwards. As root (PostgreSQL refuses to run as root) the cluster runs as
``nobody`` through ``runuser``. No PostgreSQL: skipped with the reason, failed under CI=true.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

BIN = Path(os.environ.get("HOGRAD_PG_BIN", "/usr/lib/postgresql/15/bin"))
USER = "nobody"  # the user the cluster runs as when the tests run as root
_DATA: dict[str, Path] = {}  # a running cluster's URL -> its data directory (for restart)
_OPTIONS: dict[str, str] = {}  # a running cluster's URL -> its server options (for start)


def _require(condition: bool, reason: str) -> None:
    if condition:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"PostgreSQL tests cannot run under CI=true: {reason}")
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_owner(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", USER, "--", *cmd] if os.geteuid() == 0 else cmd


def available() -> str | None:
    """Why no cluster can start here, or None when one can."""
    if not (BIN / "initdb").exists() or not (BIN / "pg_ctl").exists():
        return f"no PostgreSQL server binaries in {BIN} (apt-get install postgresql)"
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "running as root and no runuser to start PostgreSQL as another user"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (requirements.txt)"
    return None


@contextmanager
def cluster() -> Iterator[str]:
    """A running cluster; yields its SQLAlchemy URL (``postgresql+psycopg://...``)."""
    reason = available()
    _require(reason is None, reason or "")
    folder = Path(tempfile.mkdtemp(prefix="hograd-pg-"))
    data, port = folder / "data", _free_port()
    if os.geteuid() == 0:
        shutil.chown(folder, USER)
    run = lambda *cmd: subprocess.run(
        _as_owner([str(c) for c in cmd]), check=True, capture_output=True, text=True, timeout=120
    )
    try:
        try:
            run(
                BIN / "initdb",
                "-D",
                data,
                "-A",
                "trust",
                "-U",
                "postgres",
                "--no-sync",
                "-E",
                "UTF8",
            )
            options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
            run(BIN / "pg_ctl", "-D", data, "-o", options, "-l", folder / "log", "-w", "start")
        except subprocess.CalledProcessError as err:
            log = (folder / "log").read_text() if (folder / "log").exists() else ""
            pytest.fail(f"PostgreSQL did not start: {err.stderr}\n{log[-2000:]}")
        url = f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
        _DATA[url], _OPTIONS[url] = data, options
        yield url
    finally:
        _DATA.pop(f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres", None)
        _OPTIONS.pop(f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres", None)
        subprocess.run(
            _as_owner([str(BIN / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]),
            capture_output=True,
            timeout=60,
        )
        shutil.rmtree(folder, ignore_errors=True)


def fresh_database(url: str, name: str) -> str:
    """A new empty database ``name`` in the cluster at ``url``; its URL."""
    import psycopg

    plain = url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, autocommit=True) as con:
        con.execute(f'DROP DATABASE IF EXISTS "{name}"')
        con.execute(f'CREATE DATABASE "{name}"')
    return url.rsplit("/", 1)[0] + "/" + name


def _pg_ctl(url: str, *args: str) -> None:
    """``pg_ctl`` with ``args`` on the cluster of ``url``; a failure says what pg_ctl and the
    server's log said (their last lines)."""
    base = url.rsplit("/", 1)[0] + "/postgres"
    log = _DATA[base].parent / "log"
    try:
        subprocess.run(
            _as_owner([str(BIN / "pg_ctl"), "-D", str(_DATA[base]), "-l", str(log), *args]),
            check=True,
            capture_output=True,
            timeout=120,
        )
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as err:
        said = (err.stderr or b"").decode(errors="replace") + (err.stdout or b"").decode(
            errors="replace"
        )
        tail = log.read_text(errors="replace")[-2000:] if log.exists() else "(no log)"
        raise RuntimeError(f"pg_ctl {' '.join(args)}: {err}\n{said}\nlog:\n{tail}") from err


def restart(url: str, mode: str = "fast") -> None:
    """``pg_ctl restart -m <mode>`` of the cluster at ``url`` (as :func:`cluster` yielded it,
    or a database in it): every connection is cut; returns once it accepts connections again."""
    _pg_ctl(url, "-m", mode, "-w", "restart")


def stop(url: str, mode: str = "fast") -> None:
    """``pg_ctl stop -m <mode>``: the first half of :func:`restart`, for a caller that decides
    by events when the server comes back (:func:`start`); returns once it is down."""
    _pg_ctl(url, "-m", mode, "-w", "stop")


def start(url: str) -> None:
    """``pg_ctl start`` of a cluster :func:`stop` stopped, with the options it first started
    with; returns once it accepts connections. Starting a running cluster is an error."""
    _pg_ctl(url, "-o", _OPTIONS[url.rsplit("/", 1)[0] + "/postgres"], "-w", "start")
