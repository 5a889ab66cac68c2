"""Replicas behind haproxy, on this machine: every request of a session reaches the replica its
cookie names, sessions spread over the replicas, and a replica's death costs its students one
reconnect to a live replica while the others notice nothing. Loopback only; everything started
here is stopped here."""

from __future__ import annotations

import os
import shutil
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "deploy"))

from replicas import Replicas, haproxy_config, healthy  # noqa: E402

from benchmarks.st_client import StreamlitClient  # noqa: E402
from hograd_serving.health import WARMING, probe  # noqa: E402

COOKIE = "HOGRAD_REPLICA"

pytestmark = pytest.mark.skipif(
    shutil.which("haproxy") is None and not os.environ.get("CI"),
    reason="haproxy is not installed (make test installs it)",
)


def test_the_config_has_one_server_per_replica_with_its_cookie(tmp_path: Path) -> None:
    text = haproxy_config(9000, [("r1", 9001), ("r2", 9002)])
    servers = [line.split() for line in text.splitlines() if line.strip().startswith("server")]
    assert [s[1:3] + s[3:5] for s in servers] == 2 * [  # the checked backend, the fallback
        ["r1", "127.0.0.1:9001", "cookie", "r1"],
        ["r2", "127.0.0.1:9002", "cookie", "r2"],
    ]
    assert all(s[5:] == ["check", "inter", "3s", "fall", "2", "rise", "1"] for s in servers)
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
    with Replicas(2, replica_header=True) as group:
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


STUCK_APP = str(ROOT / "tests" / "deploy" / "apps" / "stuck_asgi.py")


def fresh_visits(url: str, n: int = 4, context: ssl.SSLContext | None = None) -> list[str]:
    """The X-Hograd-Replica of ``n`` requests from new browsers (no cookies)."""
    names = []
    for _ in range(n):
        with urllib.request.urlopen(url + "/_stcore/health", timeout=30, context=context) as r:
            names.append(r.headers.get("X-Hograd-Replica", ""))
    return names


def set_cookies(resp) -> str:  # an HTTP response
    return "\n".join(resp.headers.get_all("Set-Cookie") or [])


def wait_until(condition, what: str, tries: int = 120) -> None:
    """Ask ``condition()`` up to ``tries`` times, a second apart (the proxy checks every 12 s)."""
    for _ in range(tries):
        if condition():
            return
        time.sleep(1)
    raise AssertionError(f"never happened: {what}")


def test_the_shipped_config_names_no_replica_and_holds_no_key() -> None:
    cfg = (ROOT / "deploy" / "haproxy.cfg").read_text().splitlines()
    # the header is set only inside the block that HOGRAD_REPLICA_HEADER=on enables
    where = [i for i, line in enumerate(cfg) if "set-header X-Hograd-Replica" in line]
    assert len(where) == 1 and cfg[where[0] - 1] == '.if streq("${HOGRAD_REPLICA_HEADER-}",on)'
    assert cfg[where[0] + 1] == "    http-response set-header X-Hograd-Backend %b"
    assert cfg[where[0] + 2] == ".endif"
    keys = [line.split(None, 1)[1] for line in cfg if line.strip().startswith("dynamic-cookie-key")]
    assert keys == 2 * ['"${HOGRAD_AFFINITY_KEY}"']  # from the environment, never a constant
    # a rate limit keyed on the browser's own cookie, never on its address
    assert "track-sc0 var(txn.browser)" in "\n".join(cfg) and "src" not in " ".join(cfg).split()
    # the replica's own answer, from its memory: no process per check (issue 45, finding 5)
    text = "\n".join(cfg)
    primary = text.split("\nbackend replicas\n")[1].split("\nbackend ")[0]
    assert "    option httpchk GET /_hograd/health" in primary.splitlines()
    assert "external-check" not in text and "insecure-fork-wanted" not in text
    # no check passing must not mean a 503 for everyone while the replicas answer
    assert "    use_backend answering if { nbsrv(replicas) eq 0 }" in cfg
    fallback = text.split("\nbackend answering\n")[1]
    assert "    option httpchk GET /_stcore/health" in fallback.splitlines()
    # the replicas' own endpoints are not reachable through the proxy
    assert "    http-request deny deny_status 404 if { path_beg /_hograd/ }" in cfg


def test_a_replica_that_cannot_run_scripts_is_taken_out_and_restarted(tmp_path: Path) -> None:
    """A replica whose script runs hang is taken out of the proxy by its own health answer,
    and restarted by the watchdog (Replicas.check), which says so only once the new process
    serves, warmed (issue 45, finding 4: it logged "restarted" 14 times, restarting nothing)."""
    block = tmp_path / "block"
    with Replicas(
        2,
        script=STUCK_APP,
        env={"HOGRAD_TEST_BLOCK": str(block), "HOGRAD_TEST_FLOOR_SECONDS": "1"},
        replica_header=True,
        # the stuck replica never answers, so any limit finds it; the well one must answer
        # within it on a busy machine too
        probe_timeout=10,
        warm=True,
        warm_pages=("",),
    ) as group:
        r1 = group.replicas[0]
        assert probe(r1.url, 30, script=False) is None  # warmed, and it said so
        assert sorted(fresh_visits(group.url)) == ["r1", "r1", "r2", "r2"]
        stuck = Path(f"{block}.{r1.port}")
        stuck.write_text(str(r1.process.pid))  # r1 still answers /_stcore/health...
        assert healthy(r1.url, timeout=30)
        old = r1.process
        assert group.check() == []  # ...but the probe's script run never finishes
        # that run holds r1's floor: its own answer says stuck, and the proxy takes it out
        wait_until(lambda: set(fresh_visits(group.url)) == {"r2"}, "r1 out of the proxy")
        assert group.check() == []  # two failures in a row
        group.script = str(tmp_path / "no-such-app.py")  # the next r1 cannot start
        assert group.check() == [] and group.restarts == {}  # a failed restart is no restart
        assert "r1 exited" in group.restart_failures["r1"] and old.poll() is not None
        group.script = STUCK_APP
        assert group.check() == ["r1"]  # tried again: it serves
        assert group.restarts == {"r1": 1} and group.restart_failures == {}
        assert group.replicas[0].process is not old and group.replicas[0].port == r1.port
        assert probe(r1.url, 30, script=False) is None  # warmed before it was counted
        assert group.check() == [] and group.restarts == {"r1": 1}  # it runs scripts
        wait_until(lambda: "r1" in fresh_visits(group.url), "r1 back in the proxy")
        stuck.unlink()


def test_a_failed_start_stops_everything_it_started(tmp_path: Path) -> None:
    """Issue 45, finding 4: start-up failed inside __enter__ and stop() never ran, leaving
    the replicas and haproxy running. Here the proxy cannot start (its certificate is not
    one): every replica started before it is stopped again, and the error goes on."""
    bad = tmp_path / "bad.pem"
    bad.write_text("not a certificate\n")
    group = Replicas(2, script=STUCK_APP, env={"HOGRAD_TEST_BLOCK": "/nonexistent/b"}, cert=bad)
    with pytest.raises((RuntimeError, OSError)), group:
        pytest.fail("started with a broken certificate")
    assert len(group.replicas) == 2  # both had started...
    assert all(r.process.poll() is not None for r in group.replicas)  # ...and were stopped
    assert group.proxy is None or group.proxy.poll() is not None
    assert group.log_dir is None  # and the temporary log folder it made is gone


def test_no_replica_passing_its_check_still_leaves_the_class_served() -> None:
    """Issue 45, finding 5: haproxy marked every replica down and answered 503 while they
    answered in 0.3 s. With every replica's own answer "warming" (no warm-up will come), the
    proxy sends new browsers to the replicas that answer, through its fallback backend."""
    env = {"HOGRAD_TEST_BLOCK": "/nonexistent/b", "HOGRAD_WAIT_FOR_WARMUP": "1"}
    with Replicas(2, script=STUCK_APP, env=env, replica_header=True) as group:
        assert all(probe(r.url, 30, script=False).startswith(WARMING) for r in group.replicas)

        def fallback_serves() -> bool:
            backends = []
            for _ in range(4):
                with urllib.request.urlopen(group.url + "/", timeout=30) as resp:
                    assert resp.status == 200
                    backends.append(resp.headers.get("X-Hograd-Backend"))
            return set(backends) == {"answering"}

        wait_until(fallback_serves, "every new browser served by the fallback backend")
        assert sorted(fresh_visits(group.url)) == ["r1", "r1", "r2", "r2"]  # both replicas
        client = StreamlitClient(group.url, timeout=120)
        assert client.open().status == "ok" and "ready" in client.headings  # a working page
        client.close()


def test_without_the_switch_the_proxy_names_no_replica(tmp_path: Path) -> None:
    env = {"HOGRAD_TEST_BLOCK": "/nonexistent/b"}
    group = Replicas(1, script=STUCK_APP, env=env)
    with group, urllib.request.urlopen(group.url + "/_stcore/health", timeout=30) as resp:
        assert resp.status == 200 and "X-Hograd-Replica" not in resp.headers
        assert "HOGRAD_REPLICA=r1" in set_cookies(resp)  # the affinity cookie is still set
        made = group.log_dir
        assert made is not None and (made / "r1.log").exists() and (made / "haproxy.log").exists()
    # the tooling cleans up what it starts: the temporary log folder goes with the processes
    assert not made.exists() and group.log_dir is None
    # a folder of the caller's is the caller's: the logs stay there
    kept = tmp_path / "logs"
    kept.mkdir()
    with Replicas(1, script=STUCK_APP, env=env, log_dir=kept) as group:
        assert healthy(group.url)
    assert (kept / "r1.log").exists() and (kept / "haproxy.cfg").exists()


def test_the_rate_limit_is_per_browser_cookie() -> None:
    env = {"HOGRAD_TEST_BLOCK": "/nonexistent/b"}
    os.environ["HOGRAD_RATE_LIMIT"] = "5"
    try:
        with Replicas(1, script=STUCK_APP, env=env) as group:
            url = group.url + "/_stcore/health"
            with urllib.request.urlopen(url, timeout=30) as resp:
                cookie = set_cookies(resp).split("HOGRAD_BROWSER=")[1].split(";")[0]
            codes = []
            while 429 not in codes and len(codes) < 200:  # the same browser, again and again
                req = urllib.request.Request(url, headers={"Cookie": f"HOGRAD_BROWSER={cookie}"})
                try:
                    with urllib.request.urlopen(req, timeout=30) as resp:
                        codes.append(resp.status)
                except urllib.error.HTTPError as err:
                    codes.append(err.code)
            assert codes[:5] == [200] * 5 and codes[-1] == 429  # five allowed, then refused
            # another browser (the same address) is not limited; nor is a first visit
            other = urllib.request.Request(url, headers={"Cookie": "HOGRAD_BROWSER=other"})
            with urllib.request.urlopen(other, timeout=30) as resp:
                assert resp.status == 200
            with urllib.request.urlopen(url, timeout=30) as resp:
                assert resp.status == 200
    finally:
        del os.environ["HOGRAD_RATE_LIMIT"]


def test_tls_ends_at_the_proxy(tmp_path: Path) -> None:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed (apt-get install openssl)")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=IP:127.0.0.1,DNS:localhost",
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    pem = tmp_path / "hograd.pem"  # haproxy's crt: the certificate, then its key
    pem.write_text(cert.read_text() + key.read_text())
    trust = ssl.create_default_context(cafile=str(cert))
    with Replicas(
        1, script=STUCK_APP, env={"HOGRAD_TEST_BLOCK": "/nonexistent/b"}, cert=pem
    ) as group:
        assert group.url.startswith("https://127.0.0.1:")
        with urllib.request.urlopen(group.url + "/", timeout=30, context=trust) as resp:
            assert resp.status == 200 and b"<title>" in resp.read().lower()
        address = ("127.0.0.1", group.port)
        with (  # not trusted without the certificate
            socket.create_connection(address, timeout=30) as raw,
            pytest.raises(ssl.SSLCertVerificationError),
        ):
            ssl.create_default_context().wrap_socket(raw, server_hostname="127.0.0.1")
        with socket.create_connection(address, timeout=30) as raw:  # no plain HTTP there
            raw.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert not raw.recv(100).startswith(b"HTTP/")


def test_the_proxy_sends_the_front_end_gzipped() -> None:
    """Streamlit serves its JavaScript uncompressed and leaves compression to a proxy: through
    haproxy a browser that accepts gzip gets each bundle gzipped, the same bytes once
    decompressed as the replica's own answer; one that does not accept it gets them plain."""
    import gzip
    import re

    env = {"HOGRAD_TEST_BLOCK": "/nonexistent/b"}
    with Replicas(1, script=STUCK_APP, env=env) as group:
        with urllib.request.urlopen(group.url + "/", timeout=30) as resp:
            html = resp.read().decode()
        bundle = re.search(r'src="\.?/?(static/js/[^"]+\.js)"', html)
        assert bundle, "the page names no JavaScript bundle"
        path = "/" + bundle.group(1)
        with urllib.request.urlopen(group.replicas[0].url + path, timeout=30) as resp:
            assert resp.headers.get("Content-Encoding") is None  # Streamlit's own: plain
            plain = resp.read()
        req = urllib.request.Request(group.url + path, headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(req, timeout=30) as resp:
            assert resp.headers.get("Content-Encoding") == "gzip"
            zipped = resp.read()
        assert gzip.decompress(zipped) == plain and len(zipped) < len(plain) / 2
        with urllib.request.urlopen(group.url + path, timeout=30) as resp:
            assert resp.headers.get("Content-Encoding") is None and resp.read() == plain
