"""N identical replicas of the app behind haproxy, with cookie-based session affinity.

A Streamlit session lives in the memory of the process that runs it, and every request of that
session (the page, its websocket, media, a reconnect) must reach that process. The proxy gives
each new browser a cookie naming a replica (``HOGRAD_REPLICA``) and sends every request that
carries it to that replica: never by client address, since a lecture hall reaches the server
from one NAT address. Every replica gets the same ``server.cookieSecret``, so the XSRF cookie
one signs is valid at all of them. When a replica dies, is stuck or is still warming up, the
proxy's health check (the replica's own ``/_hograd/health``, answered in memory:
hograd_serving/serving_middleware.py) takes it out and ``option redispatch`` sends its students
to a live one, where Streamlit's own reconnect gives them a fresh page. Run as a script, it
also restarts a replica whose probe (``hograd_serving.health``: that endpoint, then one real
script run) fails :data:`FAILS_TO_RESTART` times in a row (:meth:`Replicas.check`), warms the
new one, and says it restarted it only once the new one serves.

Run it as a script (``make serve REPLICAS=2``)::

    python deploy/replicas.py --replicas 2 --port 8080

or use :class:`Replicas` from Python (the tests and ``benchmarks/load.py --replicas`` do).
Everything listens on 127.0.0.1 only; the proxy's configuration is written from
``deploy/haproxy.cfg``, the same file the Docker Compose setup uses. The proxy names the replica
that answered in an ``X-Hograd-Replica`` header only when asked (``replica_header=True``, or
``HOGRAD_REPLICA_HEADER=on`` in the environment): the tests and the load benchmark need it.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "deploy" / "haproxy.cfg"
HEALTH = "/_stcore/health"
#: How long a replica may take to answer its health check after it starts (imports torch).
START_SECONDS = 120.0
#: Failed probes in a row after which :meth:`Replicas.check` restarts a replica.
FAILS_TO_RESTART = 3
#: Seconds between two rounds of probes when run as a script (each probe: a short session).
CHECK_SECONDS = 10.0
#: In a replica's environment when it is warmed: its health endpoint answers "warming" (and
#: the proxy sends it nobody) until the warm-up is done (hograd_serving/serving_middleware.py).
WAIT_ENV = "HOGRAD_WAIT_FOR_WARMUP"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def healthy(url: str, timeout: float = 2.0, context: ssl.SSLContext | None = None) -> bool:
    """Whether ``url`` + /_stcore/health answers 200 (over HTTPS: verified with ``context``)."""
    try:
        with urllib.request.urlopen(url + HEALTH, timeout=timeout, context=context) as resp:
            return resp.status == 200
    except OSError:
        return False


def haproxy_config(
    port: int,
    servers: list[tuple[str, int]],
    template: Path = TEMPLATE,
    *,
    cert: Path | None = None,
) -> str:
    """deploy/haproxy.cfg for a proxy on 127.0.0.1:``port`` in front of ``servers`` (name,
    port): each backend's ``server-template`` line is replaced by one line per replica, with
    the template line's check settings and the replica's name as its cookie value.

    Args:
        cert: a PEM file (certificate and key): the proxy then speaks HTTPS (TLS ends there).
    """
    lines = []
    for line in template.read_text().splitlines():
        if line.strip().startswith("bind "):
            line = f"    bind 127.0.0.1:{port}" + (f" ssl crt {cert}" if cert else "")
        if line.strip().startswith("server-template "):
            words = line.split()
            check = " ".join(words[words.index("check") : words.index("resolvers")])
            lines += [
                f"    server {name} 127.0.0.1:{p} cookie {name} {check}" for name, p in servers
            ]
            continue
        lines.append(line)
    return "\n".join(lines) + "\n"


@dataclass
class Replica:
    name: str
    port: int
    process: subprocess.Popen[bytes]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@dataclass
class Replicas:
    """``count`` app processes and haproxy in front of them; a context manager that stops all
    of them on exit (and on SIGTERM when run as a script).

    Args:
        count: how many replicas.
        port: the proxy's port (a free one when 0).
        env: extra environment for the replicas (``STREAMLIT_...`` settings, say).
        log_dir: where each process's output goes, kept after :meth:`stop`. When None, a
            temporary folder that :meth:`stop` removes with everything else it started (the
            logs of a run that went wrong are then gone: pass a folder to keep them).
        warm: warm each replica (hograd_serving.warmup) before the proxy starts, and a
            restarted one before it takes students (its health endpoint says "warming" until
            then, so the proxy sends it nobody).
        warm_pages: the pages the warm-up opens (the tests' stand-in apps have one).
        replica_header: the proxy names the replica that answered (``X-Hograd-Replica``).
        script: the app each replica runs (the tests run small stand-ins).
        cert: a PEM file with certificate and key: the proxy serves HTTPS with it.
        probe_timeout: seconds a replica's probe may take (:meth:`check`'s).
    """

    count: int = 2
    port: int = 0
    env: dict[str, str] = field(default_factory=dict)
    log_dir: Path | None = None
    warm: bool = False
    warm_pages: tuple[str, ...] | None = None  # None: the labs' declared views (pages.SITE)
    replica_header: bool = False
    script: str = "hograd_serving/asgi.py"  # hograd_serving.command.SCRIPT (run from ROOT)
    cert: Path | None = None
    probe_timeout: float = 10.0
    replicas: list[Replica] = field(default_factory=list)
    proxy: subprocess.Popen[bytes] | None = None
    #: restarts so far, by replica name (:meth:`check`)
    restarts: dict[str, int] = field(default_factory=dict)
    #: why the last attempt to restart a replica failed, by replica name (:meth:`check`)
    restart_failures: dict[str, str] = field(default_factory=dict)
    _fails: dict[str, int] = field(default_factory=dict)
    _secret: str = ""
    _logs: list = field(default_factory=list)
    _own_dir: bool = False  # log_dir is a temporary folder made by start(): stop() removes it

    def _log(self, name: str):  # an open binary file
        assert self.log_dir is not None
        self._logs.append((self.log_dir / name).open("wb"))
        return self._logs[-1]

    @property
    def url(self) -> str:
        return f"{'https' if self.cert else 'http'}://127.0.0.1:{self.port}"

    def __enter__(self) -> Replicas:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        """Start the replicas and the proxy; return once every replica and the proxy answer.
        If any of it fails (a replica or the proxy exits, or does not answer within
        :data:`START_SECONDS`; the replicas are warmed in between, each in a thread, with the
        warm-up's own time limits), everything started so far is stopped before the error goes
        on.
        """
        try:
            self._start()
        except BaseException:
            self.stop()
            raise

    def _start(self) -> None:
        haproxy = shutil.which("haproxy")
        if haproxy is None:
            raise RuntimeError("haproxy is not installed: apt-get install haproxy (make debian)")
        self.port = self.port or free_port()
        if self.log_dir is None:
            self.log_dir, self._own_dir = Path(tempfile.mkdtemp(prefix="hograd-replicas-")), True
        self._secret = secrets.token_hex(32)  # the same for every replica: see the module doc
        for i in range(1, self.count + 1):
            self.replicas.append(self._start_replica(f"r{i}", free_port()))
        config = self.log_dir / "haproxy.cfg"
        servers = [(r.name, r.port) for r in self.replicas]
        config.write_text(haproxy_config(self.port, servers, cert=self.cert))
        proxy_env = {**os.environ, "HOGRAD_AFFINITY_KEY": secrets.token_hex(32)}
        if self.replica_header:
            proxy_env["HOGRAD_REPLICA_HEADER"] = "on"
        deadline = time.monotonic() + START_SECONDS
        for replica in self.replicas:
            self._wait(replica.url, replica.process, deadline, replica.name)
        if self.warm:  # students reach a replica only once it has made its own first visit
            with ThreadPoolExecutor(len(self.replicas)) as pool:  # one per replica (per core)
                list(pool.map(self._warm, self.replicas))
        self.proxy = subprocess.Popen(  # -db: stay in the foreground, so it stops with us
            [haproxy, "-db", "-f", str(config)],
            stdout=self._log("haproxy.log"),
            stderr=subprocess.STDOUT,
            env=proxy_env,
        )
        context = ssl.create_default_context(cafile=self.cert) if self.cert else None
        # the warm-up bounds its own pages; the proxy gets the start's time of its own
        self._wait(self.url, self.proxy, time.monotonic() + START_SECONDS, "haproxy", context)

    def _warm(self, replica: Replica) -> None:
        """Make ``replica``'s first visit, then tell it that it may take students."""
        if str(ROOT) not in sys.path:  # run as a script, from deploy/
            sys.path.insert(0, str(ROOT))
        from hograd_serving.warmup import declared_views, warm

        warm(replica.url, self.warm_pages if self.warm_pages is not None else declared_views())

    def _start_replica(self, name: str, port: int) -> Replica:
        env = {**os.environ, **self.env, "STREAMLIT_SERVER_COOKIE_SECRET": self._secret}
        if self.warm:
            env[WAIT_ENV] = "1"
        log = self._log(f"{name}.log")
        if str(ROOT) not in sys.path:  # run as a script, from deploy/
            sys.path.insert(0, str(ROOT))
        from hograd_serving.command import server_command

        process = subprocess.Popen(
            server_command(port, self.script),
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its child processes go with it when it is killed
        )
        return Replica(name, port, process)

    def check(self) -> list[str]:
        """Probe every replica once (:mod:`hograd_serving.health`: its own health endpoint,
        then one real script run) and restart any whose probe has now failed
        :data:`FAILS_TO_RESTART` times in a row: a process that still answers /_stcore/health
        but runs no script, or whose heavy work is stuck, helps nobody, and a fresh one on the
        same port takes its place (its cookie stays valid).

        A restart counts only once the new process serves: it answered its health check
        within :data:`START_SECONDS`, was warmed (with ``warm``) and passed the probe. A
        failed attempt is noted in :attr:`restart_failures` and tried again at the next round.
        Returns the names restarted in this round."""
        if str(ROOT) not in sys.path:  # run as a script, from deploy/
            sys.path.insert(0, str(ROOT))
        from hograd_serving.health import probe

        restarted = []
        for i, replica in enumerate(self.replicas):
            failed = (
                replica.process.poll() is not None
                or probe(replica.url, self.probe_timeout) is not None
            )
            self._fails[replica.name] = self._fails.get(replica.name, 0) + 1 if failed else 0
            if self._fails[replica.name] < FAILS_TO_RESTART:
                continue
            self._end(replica, signal.SIGKILL)  # hung: it may not honour SIGTERM
            self.replicas[i] = fresh = self._start_replica(replica.name, replica.port)
            why = self._serves(fresh, probe)
            if why is not None:
                self.restart_failures[replica.name] = why
                continue
            self._fails[replica.name] = 0
            self.restart_failures.pop(replica.name, None)
            self.restarts[replica.name] = self.restarts.get(replica.name, 0) + 1
            restarted.append(replica.name)
        return restarted

    def _serves(self, replica: Replica, probe) -> str | None:  # health.probe
        """Wait for a fresh ``replica`` to answer, warm it, probe it: None when it serves."""
        try:
            self._wait(replica.url, replica.process, time.monotonic() + START_SECONDS, replica.name)
        except (RuntimeError, TimeoutError) as err:
            return str(err)
        if self.warm:
            self._warm(replica)
        return probe(replica.url, self.probe_timeout)

    @staticmethod
    def _end(replica: Replica, sig: signal.Signals) -> None:
        if replica.process.poll() is None:
            os.killpg(replica.process.pid, sig)
        replica.process.wait(timeout=30)

    @staticmethod
    def _wait(
        url: str,
        process: subprocess.Popen[bytes],
        deadline: float,
        what: str,
        context: ssl.SSLContext | None = None,
    ) -> None:
        while not healthy(url, context=context):
            if process.poll() is not None:
                raise RuntimeError(f"{what} exited with status {process.returncode}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"{what} did not answer {url}{HEALTH} in time")
            time.sleep(0.2)

    def kill(self, name: str) -> None:
        """Kill replica ``name`` and its child processes at once, as a crash would."""
        replica = next(r for r in self.replicas if r.name == name)
        if replica.process.poll() is None:
            os.killpg(replica.process.pid, signal.SIGKILL)
            replica.process.wait(timeout=30)

    def stop(self) -> None:
        """Stop the proxy and every replica (with their child processes); remove the log
        folder if :meth:`start` made it."""
        if self.proxy is not None and self.proxy.poll() is None:
            self.proxy.terminate()
            self.proxy.wait(timeout=30)
        for replica in self.replicas:
            if replica.process.poll() is None:
                os.killpg(replica.process.pid, signal.SIGTERM)
                try:
                    replica.process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.killpg(replica.process.pid, signal.SIGKILL)
                    replica.process.wait(timeout=30)
        for log in self._logs:
            log.close()
        self._logs.clear()
        if self._own_dir and self.log_dir is not None:
            shutil.rmtree(self.log_dir, ignore_errors=True)
            self.log_dir, self._own_dir = None, False


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--replicas", type=int, default=2, help="app processes (default 2)")
    ap.add_argument("--port", type=int, default=8080, help="the proxy's port (default 8080)")
    ap.add_argument(
        "--logs",
        type=Path,
        default=None,
        help="a folder for the processes' logs, kept after the stop (default: a temporary "
        "folder, removed at the stop)",
    )
    args = ap.parse_args(argv)
    if not 1 <= args.replicas <= 64:
        print(f"error: --replicas: expected 1 to 64, got {args.replicas}", file=sys.stderr)
        return 2
    env: dict[str, str] = {}
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    if args.logs is not None:
        args.logs.mkdir(parents=True, exist_ok=True)
    with Replicas(args.replicas, args.port, env, log_dir=args.logs, warm=True) as group:
        ports = ", ".join(f"{r.name} :{r.port}" for r in group.replicas)
        print(f"hograd: {group.url} -> {ports} (logs in {group.log_dir}); Ctrl+C stops all")
        try:
            next_check = time.monotonic() + CHECK_SECONDS
            while not stop and group.proxy is not None and group.proxy.poll() is None:
                time.sleep(1)
                if time.monotonic() >= next_check:
                    failures = dict(group.restart_failures)
                    for name in group.check():
                        print(
                            f"hograd: restarted {name}: its probe failed "
                            f"{FAILS_TO_RESTART} times in a row; the new one serves",
                            flush=True,
                        )
                    for name, why in group.restart_failures.items():
                        if failures.get(name) != why:
                            print(f"hograd: {name} did not come back: {why}", flush=True)
                    next_check = time.monotonic() + CHECK_SECONDS
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
