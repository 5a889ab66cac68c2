"""Replicas behind haproxy, on this machine: every request of a session reaches the replica its
cookie names, sessions spread over the replicas, and a replica's death costs its students one
reconnect to a live replica while the others notice nothing. Loopback only; everything started
here is stopped here."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "deploy"))

from replicas import Replicas, haproxy_config  # noqa: E402

from benchmarks.st_client import StreamlitClient  # noqa: E402

COOKIE = "HOGRAD_REPLICA"

pytestmark = pytest.mark.skipif(
    shutil.which("haproxy") is None and not __import__("os").environ.get("CI"),
    reason="haproxy is not installed (make test installs it)",
)


def test_the_config_has_one_server_per_replica_with_its_cookie(tmp_path: Path) -> None:
    text = haproxy_config(9000, [("r1", 9001), ("r2", 9002)])
    servers = [line.split() for line in text.splitlines() if line.strip().startswith("server")]
    assert [s[1:3] + s[3:5] for s in servers] == [
        ["r1", "127.0.0.1:9001", "cookie", "r1"],
        ["r2", "127.0.0.1:9002", "cookie", "r2"],
    ]
    assert "    bind 127.0.0.1:9000" in text.splitlines()
    assert "cookie HOGRAD_REPLICA insert" in text and "balance source" not in text


def session(url: str, fn: str) -> StreamlitClient:
    client = StreamlitClient(url, timeout=120)
    assert client.open("derivatives").status == "ok"
    client.set_value("deriv.fn", fn)
    assert client.rerun().status == "ok" and not client.exceptions
    return client


def check_affinity(client: StreamlitClient) -> str:
    """The replica the session's cookie names; every response so far came from it."""
    replica = client.cookie(COOKIE)
    assert replica in {"r1", "r2"}
    assert client.replicas_seen and set(client.replicas_seen) == {replica}, client.replicas_seen
    return replica


def test_sessions_stick_to_their_replica_and_survive_a_replica_dying() -> None:
    functions = ["x**3", "tanh(x)", "sin(x)", "exp(x)", "x**5", "log(1+x^2)"]
    with Replicas(2) as group:
        clients = [session(group.url, fn) for fn in functions]
        where = [check_affinity(c) for c in clients]
        assert sorted(where) == ["r1"] * 3 + ["r2"] * 3  # round robin for new browsers
        for client, fn in zip(clients, functions, strict=True):  # more reruns, same replica
            client.set_value("deriv.order", 3)
            assert client.rerun().status == "ok"
            assert client.widget("deriv.fn").current() == fn  # the session's own state
            check_affinity(client)
        # A browser that already holds a cookie is sent where it names, not round robin (two
        # new browsers in a row would go one to each): benchmarks/replicas.py's "1 replica".
        pinned = [StreamlitClient(group.url, timeout=120, cookies={COOKIE: "r2"}) for _ in "ab"]
        for client in pinned:
            assert client.open("derivatives").status == "ok" and not client.exceptions
            assert check_affinity(client) == "r2"
            client.close()

        group.kill("r1")
        for client, fn, was in zip(clients, functions, where, strict=True):
            if was == "r2":  # untouched: the same websocket, the same state
                client.set_value("deriv.order", 4)
                assert client.rerun().status == "ok"
                assert client.widget("deriv.fn").current() == fn
                assert check_affinity(client) == "r2"
            else:  # Streamlit's reconnect: the same browser, now on the live replica
                client.close()
                client.forget_session()  # as a browser does: the old session is gone
                seen = len(client.replicas_seen)
                assert client.open("derivatives").status == "ok" and not client.exceptions
                assert set(client.replicas_seen[seen:]) == {"r2"}
                assert client.cookie(COOKIE) == "r2"  # the proxy re-pinned the browser
                assert client.headings  # a working page
        for client in clients:
            client.close()
    assert group.proxy is not None and group.proxy.poll() is not None
    assert all(r.process.poll() is not None for r in group.replicas)
