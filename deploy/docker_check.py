"""Build hograd's Docker image, run compose.yaml's replicas behind its proxy, and check what
docs/deploy.md promises of them, end to end (``make test-docker``).

What is checked, each step a pass or a failure with its reason:

1. the image builds from the Dockerfile as it is, and runs as a non-root user, with the CPU
   build of torch (no CUDA, no ``nvidia-*`` package) and Graphviz's ``dot``;
2. the command-line tool in the image reproduces the seed examples (d/dx of x³ at 2 is 12, and
   d²/dx² is 12; for w1²·sin(w2) at (1, π/2) and v = (0.5, 1), ∇f = (2, 0) and Hv = (1, −1));
3. ``docker compose up --scale app=N`` starts N replicas and the proxy, and Docker's own
   HEALTHCHECK reports every replica healthy;
4. through the proxy, every request of a session (page, websocket) reaches one replica, named
   by the proxy's cookie, and new browsers are spread over all of them; Chromium draws the
   derivatives page through it, in English and in Chinese (screenshots kept);
5. a replica killed as a crash would kill it: its students reconnect to a live replica and get a
   working page, the others keep their sessions, and the restart policy brings the replica back
   into the proxy.

It prints what it measured (build seconds, image size, each replica's start-up seconds and
memory) and exits 1 if a check failed. Everything it starts it stops (``--keep`` leaves the
containers up).

Where Docker Hub cannot be reached (this project's build machines), the two official images the
files name, ``python:3.11-slim`` and ``haproxy:2.6``, are replaced by stand-ins built here from
Debian bookworm's packages, and never tagged with the official names:
``hograd-standin/python:3.11-slim`` (debootstrap's minimal Debian with Debian's Python 3.11 and
pip; the official image has its own build of Python 3.11 on the same Debian) and
``hograd-standin/haproxy:2.6`` (Debian's haproxy 2.6 on it). Where PyTorch's server cannot be
reached, the CPU torch comes from a local folder of wheels (``--wheels``; by default pip's own
``find-links`` when it holds the wheel), served to the build over HTTP on 127.0.0.1, and the
stand-in trusts the certificate authorities this machine adds in /usr/local/share/ca-certificates
(an HTTPS-inspecting egress proxy's), so that the build reaches PyPI as the host does.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script, from deploy/

from benchmarks.st_client import StreamlitClient  # noqa: E402
from deploy.replicas import healthy as healthy_at  # noqa: E402 - url + /_stcore/health is 200

IMAGE = "hograd:check"
PROJECT = "hogradcheck"
PYTHON_IMAGE, HAPROXY_IMAGE = "python:3.11-slim", "haproxy:2.6"
STANDIN_PYTHON, STANDIN_HAPROXY = "hograd-standin/python:3.11-slim", "hograd-standin/haproxy:2.6"
TORCH_WHEEL = "torch-2.13.0+cpu-"
WHEELS_PORT = 3141  # where the local wheels are served to the build (devpi's port)
LOCAL_CAS = Path("/usr/local/share/ca-certificates")
COOKIE = "HOGRAD_REPLICA"
#: How long a replica may take to be reported healthy (HEALTHCHECK's interval is 30 s).
HEALTHY_SECONDS = 240.0
STANDIN_HAPROXY_DOCKERFILE = f"""FROM {STANDIN_PYTHON}
RUN apt-get update && apt-get install -y --no-install-recommends haproxy \\
    && rm -rf /var/lib/apt/lists/*
USER haproxy
CMD ["haproxy", "-W", "-db", "-f", "/usr/local/etc/haproxy/haproxy.cfg"]
"""


class CheckFailed(Exception):
    """A check did not hold; the message says which and why."""


def run(*cmd: str, timeout: float = 600, check: bool = True, **kw: object) -> str:
    """The command's output (stdout and stderr); CheckFailed when it fails and ``check``."""
    try:
        done = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, check=False, **kw
        )  # type: ignore[call-overload]
    except subprocess.TimeoutExpired as exc:
        raise CheckFailed(f"{' '.join(cmd[:4])} ...: no answer in {timeout:.0f} s") from exc
    if check and done.returncode != 0:
        tail = (done.stdout + done.stderr).strip().splitlines()[-15:]
        raise CheckFailed(f"{' '.join(cmd[:4])} ... exited {done.returncode}:\n" + "\n".join(tail))
    return done.stdout + done.stderr


def docker(*args: str, timeout: float = 600, check: bool = True) -> str:
    return run("docker", *args, timeout=timeout, check=check).strip()


def compose_command() -> list[str]:
    """``docker compose`` (v2) where it is installed, else ``docker-compose`` (v1)."""
    if succeeds("docker", "compose", "version"):
        return ["docker", "compose"]
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    raise CheckFailed("neither 'docker compose' nor 'docker-compose' is installed")


def succeeds(*cmd: str, timeout: float = 120) -> bool:
    try:
        return subprocess.run(cmd, capture_output=True, timeout=timeout).returncode == 0
    except subprocess.TimeoutExpired:
        return False


def have_image(name: str) -> bool:
    return succeeds("docker", "image", "inspect", name)


def pullable(name: str) -> bool:
    """Whether the official image is here or can be pulled now."""
    return have_image(name) or succeeds("docker", "pull", name)


def build_standins(cache: Path) -> None:
    """The two stand-in images (see the module doc), built once and kept."""
    if not have_image(STANDIN_PYTHON):
        rootfs = cache / "bookworm"
        if not (rootfs / "usr" / "bin" / "python3").exists():
            if shutil.which("debootstrap") is None:
                raise CheckFailed("the stand-in needs debootstrap: apt-get install debootstrap")
            shutil.rmtree(rootfs, ignore_errors=True)
            rootfs.parent.mkdir(parents=True, exist_ok=True)
            run(
                "debootstrap",
                "--variant=minbase",
                "--include=python3,python3-pip,python3-venv,python-is-python3,ca-certificates",
                "bookworm",
                str(rootfs),
                "http://deb.debian.org/debian",
                timeout=1200,
            )
        # as in the official image: pip installs into the image's Python, no venv needed
        (rootfs / "usr/lib/python3.11/EXTERNALLY-MANAGED").unlink(missing_ok=True)
        # this machine's own certificate authorities (an HTTPS-inspecting egress proxy, say),
        # so that the build reaches PyPI as the host does
        extra = sorted(LOCAL_CAS.glob("*.crt")) if LOCAL_CAS.is_dir() else []
        for cert in extra:
            shutil.copy(cert, rootfs / "usr/local/share/ca-certificates" / cert.name)
        if extra:
            run("chroot", str(rootfs), "update-ca-certificates")
        shutil.rmtree(rootfs / "var/cache/apt/archives", ignore_errors=True)
        (rootfs / "var/cache/apt/archives/partial").mkdir(parents=True, exist_ok=True)
        tar = subprocess.Popen(["tar", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)
        run(
            "docker",
            "import",
            "--change",
            "ENV LANG=C.UTF-8",
            "--change",
            'CMD ["python3"]',
            "-",
            STANDIN_PYTHON,
            stdin=tar.stdout,
        )
        tar.wait()
    if not have_image(STANDIN_HAPROXY):
        run(
            "docker",
            "build",
            "--network",
            "host",
            "-t",
            STANDIN_HAPROXY,
            "-",
            input=STANDIN_HAPROXY_DOCKERFILE,
        )


def pip_find_links() -> Path | None:
    """The folder of pip's own ``find-links`` setting, if it holds the CPU torch wheel."""
    out = run(sys.executable, "-m", "pip", "config", "get", "global.find-links", check=False)
    for word in out.split():
        folder = Path(word.removeprefix("file://"))
        if folder.is_dir() and any(p.name.startswith(TORCH_WHEEL) for p in folder.iterdir()):
            return folder
    return None


@contextlib.contextmanager
def serve_folder(folder: Path) -> Iterator[str]:
    """``folder``'s files over HTTP on 127.0.0.1 (a page of links, as pip's find-links reads)."""
    quiet = type("Quiet", (http.server.SimpleHTTPRequestHandler,), {"log_message": lambda *a: None})
    handler = functools.partial(quiet, directory=str(folder))
    try:  # the same address every run, so Docker's cache keeps the pip layer (ARG in its key)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", WHEELS_PORT), handler)
    except OSError:  # taken: any free port (the pip layer is built again)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()


class Check:
    """The running check: its steps, its measurements, the compose project it started."""

    def __init__(self, replicas: int, port: int, base: str, haproxy: str) -> None:
        self.replicas, self.port, self.base, self.haproxy = replicas, port, base, haproxy
        self.figures: dict[str, object] = {"base image": base, "proxy image": haproxy}
        self.steps: list[tuple[str, bool, str]] = []
        self.clients: list[tuple[StreamlitClient, str, str]] = []  # (client, function, replica)
        self.compose = compose_command()
        self.env = {
            **os.environ,
            "HOGRAD_IMAGE": IMAGE,
            "HOGRAD_HAPROXY_IMAGE": haproxy,
            "HOGRAD_BASE_IMAGE": base,
            "HOGRAD_PORT": str(port),
            "HOGRAD_COOKIE_SECRET": secrets.token_hex(32),
            "COMPOSE_PROJECT_NAME": PROJECT,
            "HOGRAD_AFFINITY_KEY": secrets.token_hex(32),
            "HOGRAD_REPLICA_HEADER": "on",
        }

    def step(self, name: str, fn) -> bool:  # a callable returning its detail
        try:
            detail = fn() or ""
            ok = True
        except Exception as exc:  # every failure is reported as the step's
            detail, ok = f"{type(exc).__name__}: {exc}", False
        self.steps.append((name, ok, str(detail)))
        print(
            f"{'ok  ' if ok else 'FAIL'} {name}{': ' + str(detail) if detail else ''}", flush=True
        )
        return ok

    def compose_run(self, *args: str, timeout: float = 600) -> str:
        return run(
            *self.compose,
            "-f",
            str(ROOT / "compose.yaml"),
            *args,
            timeout=timeout,
            env=self.env,
            cwd=ROOT,
        )

    # -- the steps ------------------------------------------------------------------------

    def build(self, wheels: Path | None) -> str:
        args = [
            "docker",
            "build",
            "--network",
            "host",
            "-t",
            IMAGE,
            "--build-arg",
            f"BASE={self.base}",
        ]
        start = time.monotonic()
        with contextlib.ExitStack() as stack:
            if wheels is not None:
                url = stack.enter_context(serve_folder(wheels))
                args += ["--build-arg", f"PIP_FIND_LINKS={url}"]
            run(*args, str(ROOT), timeout=1800)
        seconds = time.monotonic() - start
        size = int(docker("image", "inspect", "--format", "{{.Size}}", IMAGE)) / 1e6
        self.figures["build seconds"] = round(seconds, 1)
        self.figures["image MB"] = round(size)
        return f"{seconds:.0f} s, {size:.0f} MB"

    def image(self) -> str:
        probe = (
            "import importlib.metadata as m, os, shutil, torch; "
            "print(os.getuid(), torch.__version__, torch.version.cuda, torch.cuda.is_available(),"
            " sorted(d.metadata['Name'] for d in m.distributions()"
            " if d.metadata['Name'].lower().startswith('nvidia')), bool(shutil.which('dot')))"
        )
        out = docker("run", "--rm", "--network", "none", IMAGE, "python", "-c", probe)
        uid, version, cuda, available, nvidia, dot = out.splitlines()[-1].split(" ", 5)
        assert uid != "0", f"the image runs as root (uid {uid})"
        assert version.endswith("+cpu") and cuda == "None" and available == "False", out
        assert nvidia == "[]" and dot == "True", out
        return f"uid {uid}, torch {version}, CUDA {cuda}, dot present"

    def seeds(self) -> str:
        cli = ["run", "--rm", "--network", "none", IMAGE, "python", "-m", "hograd_cli"]
        deriv = json.loads(
            docker(*cli, "derivatives", "x**3", "--order", "2", "--at", "2", "--json")
        )
        hvp = json.loads(
            docker(
                *cli,
                "hvp",
                "w1**2*sin(w2)",
                "--at",
                "1,1.5707963267948966",
                "--vector",
                "0.5,1",
                "--json",
            )
        )
        values = [row[0] for row in deriv["values"]]  # f, f', f'' at x = 2
        assert values[1:] == [12.0, 12.0], deriv
        grad, hv = [float(v) for v in hvp["gradient"]], [float(v) for v in hvp["hvp"]]
        assert close(grad, [2.0, 0.0]) and close(hv, [1.0, -1.0]), hvp
        return f"x³ at 2: {values[1]:g}, {values[2]:g}; ∇f = {fmt(grad)}, Hv = {fmt(hv)}"

    def up(self) -> str:
        start = time.monotonic()
        self.compose_run("up", "-d", "--no-build", "--scale", f"app={self.replicas}")
        apps = self.apps()
        assert len(apps) == self.replicas, f"{len(apps)} app containers, not {self.replicas}"
        ips = {
            c: docker(
                "inspect", "--format", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}", c
            )
            for c in apps
        }
        answered: dict[str, float] = {}
        healthy: dict[str, float] = {}
        deadline = start + HEALTHY_SECONDS
        while len(healthy) < len(apps):
            assert time.monotonic() < deadline, (
                f"not healthy in time: {sorted(set(apps) - set(healthy))}"
            )
            for c in apps:
                if c not in answered and healthy_at(f"http://{ips[c]}:8501"):
                    answered[c] = time.monotonic() - start
                if c not in healthy and self.health(c) == "healthy":
                    healthy[c] = time.monotonic() - start
            time.sleep(0.5)
        assert healthy_at(self.url), "the proxy does not answer"
        self.figures["start-up seconds (health answers)"] = sorted(
            round(s, 1) for s in answered.values()
        )
        self.figures["seconds to HEALTHCHECK healthy"] = sorted(
            round(s, 1) for s in healthy.values()
        )
        return (
            f"{len(apps)} replicas answered /_stcore/health after "
            f"{', '.join(f'{s:.1f}' for s in sorted(answered.values()))} s; "
            f"Docker reports them healthy"
        )

    def affinity(self) -> str:
        functions = ["x**3", "tanh(x)", "sin(x)", "exp(x)"]
        for fn in [functions[i % len(functions)] for i in range(2 * self.replicas)]:
            client = StreamlitClient(self.url, timeout=120)
            assert client.open("derivatives").status == "ok" and not client.exceptions
            client.set_value("deriv.fn", fn)
            assert client.rerun().status == "ok" and not client.exceptions
            self.clients.append((client, fn, stuck(client)))
        where = [w for _, _, w in self.clients]
        assert len(set(where)) == self.replicas, f"sessions on {sorted(set(where))} only"
        return f"{len(where)} sessions, each on one replica, over {len(set(where))} replicas"

    def browser(self, shots: Path) -> str:
        """Chromium through the proxy, in English and in Chinese: the page settles with its
        chart, no exception is shown, and every response came from the replica its cookie
        names. A screenshot of each is kept in ``shots``."""
        from playwright.sync_api import sync_playwright

        from benchmarks.first_screens import SETTLED_JS
        from benchmarks.load import CHROMIUM, CHROMIUM_ARGS
        from hograd_ui.i18n import tr

        shots.mkdir(parents=True, exist_ok=True)
        done = []
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                for lang in ("en", "zh"):
                    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
                    page = ctx.new_page()
                    seen: list[str] = []
                    page.on(
                        "response",
                        lambda r, seen=seen: seen.append(r.headers.get("x-hograd-replica", "")),
                    )
                    start = time.monotonic()
                    page.goto(f"{self.url}/derivatives?lang={lang}&deriv.fn=x**3")
                    page.wait_for_function(SETTLED_JS, timeout=120_000, polling=50)
                    seconds = time.monotonic() - start
                    title = page.inner_text('[data-testid="stMain"] h1')
                    assert title.strip() == tr("deriv.title", lang), title
                    assert page.locator('[data-testid="stException"]').count() == 0
                    cookie = [c for c in ctx.cookies() if c["name"] == COOKIE]
                    replicas = set(seen) - {""}
                    assert cookie and len(replicas) == 1, f"cookie {cookie}, replicas {replicas}"
                    page.screenshot(path=str(shots / f"docker-derivatives-{lang}.png"))
                    done.append(f"{lang} {seconds:.1f} s on {replicas.pop()}")
                    ctx.close()
            finally:
                browser.close()
        return f"settled: {', '.join(done)}; screenshots in {shots}"

    def memory(self) -> str:
        used = {}
        for c in self.apps():
            out = docker("stats", "--no-stream", "--format", "{{.MemUsage}}", c)
            used[c] = round(to_mb(out.split("/")[0]))
        self.figures["MB per replica (docker stats, after 2 sessions each)"] = sorted(used.values())
        return ", ".join(f"{mb} MB" for mb in sorted(used.values()))

    def crash(self) -> str:
        victim = self.apps()[0]
        pid = int(docker("inspect", "--format", "{{.State.Pid}}", victim))
        os.kill(pid, signal.SIGKILL)  # from outside, as the kernel's OOM killer would
        # Which replica's name the proxy gave the killed container is not known from outside:
        # the sessions tell. Those of exactly one replica lose their connection; every other
        # session goes on with its own state, on the replica it had.
        lost, kept = set(), set()
        for client, fn, was in self.clients:
            try:
                client.set_value("deriv.order", 4)
                fine = client.rerun().status == "ok" and client.widget("deriv.fn").current() == fn
            except Exception:  # the websocket of a dead replica, closed
                fine = False
            (kept if fine and stuck(client) == was else lost).add(was)
        assert len(lost) == 1 and not lost & kept, f"lost {sorted(lost)}, kept {sorted(kept)}"
        (dead,) = lost
        landed = []
        for client, _fn, was in self.clients:
            if was == dead:  # Streamlit's reconnect: the same browser, a new session
                client.close()
                client.forget_session()
                seen = len(client.replicas_seen)
                result = client.open("derivatives")
                assert result.status == "ok", f"the reconnect ended {result.status}"
                assert not client.exceptions and client.headings, "not a working page"
                now = set(client.replicas_seen[seen:])
                assert len(now) == 1, f"the new session's requests reached {sorted(now)}"
                # a live replica (the proxy redispatched it), or the killed one, once Docker
                # restarted it and the proxy's health check found it answering again
                landed.append(now.pop())
        # the restart policy starts it again; Docker's HEALTHCHECK and the proxy take it back
        deadline = time.monotonic() + HEALTHY_SECONDS
        while self.health(victim) != "healthy" or len(self.spread()) < self.replicas:
            assert time.monotonic() < deadline, "the killed replica did not come back in time"
            time.sleep(1)
        restarts = docker("inspect", "--format", "{{.RestartCount}}", victim)
        return (
            f"{len(landed)} session(s) of {dead} reconnected (to {', '.join(landed)}), "
            f"{len(self.clients) - len(landed)} others kept theirs; {dead} restarted "
            f"({restarts}), healthy and back in the proxy"
        )

    # -- helpers --------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def apps(self) -> list[str]:
        return self.compose_run("ps", "-q", "app").split()

    def health(self, container: str) -> str:
        return docker("inspect", "--format", "{{.State.Health.Status}}", container, check=False)

    def spread(self) -> set[str]:
        """The replicas new browsers reach (as many tried as twice the replicas)."""
        names = set()
        for _ in range(2 * self.replicas):
            with StreamlitClient(self.url, timeout=60) as probe:
                if probe.open("derivatives").status == "ok":
                    names.add(stuck(probe))
        return names

    def down(self) -> None:
        for client, _, _ in self.clients:
            client.close()
        self.compose_run("down", "--remove-orphans", timeout=300)


def stuck(client: StreamlitClient) -> str:
    """The one replica that answered every request of the session, named by its cookie."""
    assert client.cookie(COOKIE), "the proxy set no affinity cookie"
    seen = set(client.replicas_seen)
    assert len(seen) == 1, f"a session's requests reached {sorted(seen)}"
    return seen.pop()


def free_port() -> int:
    """A TCP port that nothing listens on now, on any address: Docker publishes the proxy on
    all of them (deploy/replicas.py's free_port looks at loopback only, where it listens)."""
    with socket.socket() as sock:
        sock.bind(("", 0))
        return sock.getsockname()[1]


def close(got: list[float], want: list[float]) -> bool:
    return len(got) == len(want) and all(abs(g - w) < 1e-9 for g, w in zip(got, want, strict=True))


def fmt(values: list[float]) -> str:
    return "(" + ", ".join(f"{round(v, 12) + 0.0:g}" for v in values) + ")"


def to_mb(text: str) -> float:
    """docker stats' "512.3MiB" as megabytes."""
    text = text.strip()
    for unit, factor in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10), ("B", 1)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * factor / 1e6
    raise ValueError(f"not a memory figure: {text!r}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--replicas", type=int, default=2, help="app replicas (default 2)")
    ap.add_argument("--port", type=int, default=0, help="the proxy's port (default: a free one)")
    ap.add_argument(
        "--standins",
        choices=("auto", "always", "never"),
        default="auto",
        help="stand-in base images: when the official ones cannot be pulled (auto)",
    )
    ap.add_argument(
        "--wheels",
        type=Path,
        default=None,
        help="a folder of wheels with the CPU torch (default: pip's find-links)",
    )
    ap.add_argument(
        "--cache",
        type=Path,
        default=Path(tempfile.gettempdir()) / "hograd-standin",
        help="where the stand-in's Debian tree is kept between runs",
    )
    ap.add_argument(
        "--shots",
        type=Path,
        default=ROOT / "tests" / "artifacts" / "docker",
        help="where the browser step's screenshots go",
    )
    ap.add_argument("--keep", action="store_true", help="leave the containers running")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON at the end")
    args = ap.parse_args(argv)
    if not 1 <= args.replicas <= 8:  # deploy/haproxy.cfg's server-template has 8 slots
        print(f"error: --replicas: expected 1 to 8, got {args.replicas}", file=sys.stderr)
        return 2
    if shutil.which("docker") is None or not succeeds("docker", "info"):
        print(
            "error: no Docker engine answers here: start one (make docker-engine)", file=sys.stderr
        )
        return 2
    try:
        official = args.standins != "always" and pullable(PYTHON_IMAGE) and pullable(HAPROXY_IMAGE)
        if not official:
            if args.standins == "never":
                raise CheckFailed(f"{PYTHON_IMAGE} or {HAPROXY_IMAGE} cannot be pulled")
            build_standins(args.cache)
        base, haproxy = (
            (PYTHON_IMAGE, HAPROXY_IMAGE) if official else (STANDIN_PYTHON, STANDIN_HAPROXY)
        )
        check = Check(args.replicas, args.port or free_port(), base, haproxy)
    except CheckFailed as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    wheels = args.wheels or pip_find_links()
    started = time.monotonic()
    ok = check.step("the image builds", lambda: check.build(wheels))
    ok = ok and check.step("non-root, CPU torch, no CUDA, dot", check.image)
    ok = ok and check.step("the seed examples in the image's CLI", check.seeds)
    try:
        ok = ok and check.step(f"{args.replicas} replicas up and healthy", check.up)
        ok = ok and check.step("sessions stick to their replica", check.affinity)
        ok = ok and check.step("Chromium through the proxy", lambda: check.browser(args.shots))
        ok = ok and check.step("memory per replica", check.memory)
        ok = ok and check.step("a replica crashes and comes back", check.crash)
    finally:
        if not args.keep:
            check.down()
    check.figures["check seconds (build included)"] = round(time.monotonic() - started)
    if args.json:
        print(json.dumps(check.figures, indent=2, ensure_ascii=False))
    else:
        for name, value in check.figures.items():
            print(f"  {name}: {value}")
    return 0 if ok and all(ok for _, ok, _ in check.steps) else 1


if __name__ == "__main__":
    sys.exit(main())
