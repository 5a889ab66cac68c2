"""The teacher's key: the one value the server holds that opens the lesson's teacher's version.

The server reads it from Streamlit's secrets (``HOGRAD_TEACHER_KEY`` at the top level of
``.streamlit/secrets.toml``, or Community Cloud's secrets box) or else from the environment
variable of the same name (Docker, compose). It is never a value in the repository. Without
one, nobody gets the teacher's version.

``make run`` starts the app through this module's ``__main__``, which makes up a key when the
machine has none, and prints the teacher's link in the terminal, as Jupyter prints its token::

    python -m hograd_serving.teacher_key --port 8501 -- python -m streamlit run app.py
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import os
import secrets
import sys
import tomllib
from pathlib import Path

__all__ = ["NAME", "server_key", "session_token", "teacher_link"]

NAME = "HOGRAD_TEACHER_KEY"
#: Streamlit's secrets file for an app started in this folder (its default path)
SECRETS_FILE = Path(".streamlit") / "secrets.toml"


def _as_key(value: object) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def server_key() -> str | None:
    """The teacher's key, from Streamlit's secrets or the environment; None when neither
    holds a non-blank one. Called in a script run (it reads ``st.secrets``)."""
    import streamlit as st  # here: the command-line side below runs without a server

    if st.secrets.load_if_toml_exists():
        key = _as_key(st.secrets.get(NAME))
        if key is not None:
            return key
    return _as_key(os.environ.get(NAME))


#: what a session token authenticates (the HMAC's message); a token opens this and nothing else
_PURPOSE = b"hograd teacher session v1"


def session_token(key: str) -> str:
    """The token a lecturer's browser holds instead of the key (hograd_serving/teacher_door.py):
    HMAC-SHA256 of a fixed message under the key, 64 hex digits. It opens the teacher's version
    as the key does, for as long as the server keeps that key, but the key itself cannot be
    read back from it; a new key makes every old token useless.

    Example:
        >>> len(session_token("s3cret")), session_token("s3cret") == session_token("s3cret!")
        (64, False)
    """
    raw = key.encode("utf-8", "surrogatepass")[:1024]
    return hmac.new(raw, _PURPOSE, hashlib.sha256).hexdigest()


def _file_key(path: Path) -> str | None:
    try:
        return _as_key(tomllib.loads(path.read_text("utf-8")).get(NAME))
    except (OSError, ValueError):  # no file, not TOML: Streamlit says so itself at start
        return None


def teacher_link(port: int, key: str) -> str:
    """The lesson's teacher's link on this machine."""
    from urllib.parse import quote

    return f"http://localhost:{port}/lesson?key={quote(key, safe='')}"


def main(argv: list[str] | None = None) -> None:
    """Make sure the server will have a key, print the teacher's link, run the command."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8501)
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the server's command")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    key = _file_key(SECRETS_FILE) or _as_key(os.environ.get(NAME))
    if key is None:
        key = secrets.token_urlsafe(24)  # 192 random bits
        os.environ[NAME] = key
        where = "made up for this run"
    else:
        where = f"from {SECRETS_FILE}" if _file_key(SECRETS_FILE) else f"from ${NAME}"
    print(
        f"\n  The lesson's teacher's version (key {where}); keep this link to yourself:\n"
        f"  {teacher_link(args.port, key)}\n",
        flush=True,
    )
    if command:
        os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
