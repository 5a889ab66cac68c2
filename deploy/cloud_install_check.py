"""Install requirements.txt as Streamlit Community Cloud does, and check that it brings the CPU
build of torch (``make test-cloud-install``; .ci/run runs it).

Community Cloud installs requirements.txt with uv, falling back to pip, from the public index,
with no configuration of ours. This check does the same, each installer in a fresh virtual
environment with an empty cache and no pip configuration file, and checks, each step a pass or
a failure with its reason:

1. uv resolves and installs the file; the environment's torch is ``2.13.0+cpu``, reports no
   CUDA, and no ``nvidia-*`` or ``triton`` distribution is installed; every package the file
   pins is installed at its pin (so uv took none of them from PyTorch's page);
2. the same with pip;
3. the control: the same file with a plain ``torch==2.13.0`` and no PyTorch page resolves, for
   Linux x86_64, to the CUDA build with ``nvidia-*`` packages. This shows that the checks above
   can fail, and that the two lines in requirements.txt are what makes the difference.

It prints the seconds each install took and the environment's size, and exits 1 if a check
failed.

Where download.pytorch.org cannot be reached (this project's build machines), the page the file
names is replaced by a stand-in served on 127.0.0.1: the same path (``/whl/cpu/torch/``), a link
in the same form as PyTorch's (``/whl/cpu/torch-2.13.0%2Bcpu-...whl#sha256=...``), to the CPU
wheel in a local folder (``--wheels``; by default pip's own ``find-links`` setting). Only that one
line of the file is changed for it; every other package comes from the public index. What the
stand-in cannot show is the real page itself: that it still lists the wheel.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import hashlib
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REQUIREMENTS = ROOT / "requirements.txt"
TORCH_PAGE = "https://download.pytorch.org/whl/cpu/torch/"
FIND_LINKS_LINE = f"--find-links {TORCH_PAGE}"
TORCH_PIN = "torch==2.13.0+cpu"
TORCH_WHEEL = "torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl"
#: Distributions that only a CUDA build of torch brings.
CUDA_PREFIXES = ("nvidia-", "triton")
#: Run in the new environment: what its torch says of itself, and what is installed.
PROBE = """
import importlib.metadata as md, json, torch
print(json.dumps({
    "torch": torch.__version__,
    "cuda": torch.version.cuda,
    "cuda_available": torch.cuda.is_available(),
    "installed": {d.metadata["Name"]: d.version for d in md.distributions()},
}))
"""


class CheckFailed(Exception):
    """A check did not hold; the message says which and why."""


def run(*cmd: str, timeout: float = 900, env: dict[str, str] | None = None) -> str:
    """The command's stdout; CheckFailed, with the end of its output, when it fails."""
    try:
        done = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, env=env, check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise CheckFailed(f"{' '.join(cmd[:4])} ...: no answer in {timeout:.0f} s") from exc
    if done.returncode != 0:
        tail = (done.stdout + done.stderr).strip().splitlines()[-15:]
        raise CheckFailed(f"{' '.join(cmd[:4])} ... exited {done.returncode}:\n" + "\n".join(tail))
    return done.stdout


def pins(text: str) -> dict[str, str]:
    """The ``name==version`` lines of a requirements file, by normalised name (an extra, as
    in ``psycopg[binary]``, is not part of the name the installer reports)."""
    found = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line and not line.startswith("-"):
            name, version = line.split("==", 1)
            found[normalise(name.split("[", 1)[0])] = version.strip()
    return found


def normalise(name: str) -> str:
    """A distribution's name as the packaging standards compare it."""
    return name.strip().lower().replace("_", "-").replace(".", "-")


def with_page(text: str, page: str) -> str:
    """requirements.txt with its PyTorch page replaced by ``page``, nothing else changed."""
    lines = text.splitlines(keepends=True)
    at = [i for i, line in enumerate(lines) if line.strip() == FIND_LINKS_LINE]
    if len(at) != 1 or TORCH_PIN not in (line.strip() for line in lines):
        raise CheckFailed(
            f"requirements.txt must hold the lines {FIND_LINKS_LINE!r} and {TORCH_PIN!r} "
            "(docs/deploy.md says why)"
        )
    lines[at[0]] = f"--find-links {page}\n"
    return "".join(lines)


def plain_torch(text: str) -> str:
    """The control: requirements.txt with a plain torch pin and no PyTorch page."""
    kept = [line for line in text.splitlines() if line.strip() != FIND_LINKS_LINE]
    return "\n".join("torch==2.13.0" if line.strip() == TORCH_PIN else line for line in kept) + "\n"


def problems(probe: dict, wanted: dict[str, str]) -> list[str]:
    """What is wrong with an environment, from the probe's answer; empty when all is right."""
    found = []
    if probe["torch"] != "2.13.0+cpu":
        found.append(f"torch is {probe['torch']}, not 2.13.0+cpu")
    if probe["cuda"] is not None or probe["cuda_available"]:
        found.append(f"torch reports CUDA {probe['cuda']}")
    installed = {normalise(n): v for n, v in probe["installed"].items()}
    cuda = sorted(n for n in installed if n.startswith(CUDA_PREFIXES))
    if cuda:
        found.append(f"CUDA packages installed: {', '.join(cuda)}")
    for name, version in sorted(wanted.items()):
        if installed.get(name) != version:
            found.append(f"{name}: pinned {version}, installed {installed.get(name)}")
    return found


def cuda_packages(compiled: str) -> list[str]:
    """The CUDA-only distributions in a ``uv pip compile`` output."""
    names = (line.split("==", 1)[0].strip() for line in compiled.splitlines() if "==" in line)
    return sorted(n for n in names if normalise(n).startswith(CUDA_PREFIXES))


def reachable(url: str, timeout: float = 8.0) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:
            return answer.status == 200
    except (OSError, ValueError):
        return False


def pip_find_links() -> Path | None:
    """The folder of pip's own ``find-links`` setting, if it holds the CPU torch wheel."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "config", "get", "global.find-links"],
        capture_output=True,
        text=True,
        check=False,
    )
    for word in done.stdout.split():
        folder = Path(word.removeprefix("file://"))
        if (folder / TORCH_WHEEL).is_file():
            return folder
    return None


def standin_page(wheels: Path, site: Path) -> Path:
    """Write PyTorch's page of CPU torch wheels, as it is laid out, under ``site``."""
    wheel = wheels / TORCH_WHEEL
    if not wheel.is_file():
        raise CheckFailed(f"the stand-in page needs {TORCH_WHEEL} in {wheels}")
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    page = site / "whl" / "cpu" / "torch"
    page.mkdir(parents=True, exist_ok=True)
    (site / "whl" / "cpu" / TORCH_WHEEL).symlink_to(wheel.resolve())
    href = f"/whl/cpu/{urllib.parse.quote(TORCH_WHEEL)}#sha256={digest}"
    (page / "index.html").write_text(
        "<!DOCTYPE html>\n<html>\n<body>\n<h1>Links for torch</h1>\n"
        f'<a href="{href}">{TORCH_WHEEL}</a><br/>\n</body>\n</html>\n'
    )
    return page


@contextlib.contextmanager
def serve(site: Path) -> Iterator[str]:
    """``site`` over HTTP on a free port of 127.0.0.1; yields its address."""
    quiet = type("Quiet", (http.server.SimpleHTTPRequestHandler,), {"log_message": lambda *a: None})
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(quiet, directory=str(site))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def public_env(cache: Path) -> dict[str, str]:
    """The environment an installer gets: no pip configuration, no index settings of ours."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_"))}
    env["PIP_CONFIG_FILE"] = os.devnull  # pip reads no configuration file at all
    env["PIP_CACHE_DIR"] = str(cache / "pip")
    env["UV_CACHE_DIR"] = str(cache / "uv")
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def size_mb(folder: Path) -> float:
    total = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    return round(total / 1e6, 1)


class Check:
    """The running check: its work folder, its steps and its figures."""

    def __init__(self, work: Path, requirements: str) -> None:
        self.work = work
        self.requirements = requirements
        self.wanted = pins(requirements)
        self.env = public_env(work / "cache")
        self.steps: list[tuple[str, bool, str]] = []
        self.figures: dict[str, object] = {}
        self.uv_path: str | None = None

    def step(self, name: str, action) -> bool:  # a callable with no arguments
        started = time.monotonic()
        try:
            detail = action() or ""
            ok = True
        except CheckFailed as exc:
            detail, ok = str(exc), False
        took = time.monotonic() - started
        print(f"{'ok  ' if ok else 'FAIL'} {name} ({took:.1f} s){': ' + detail if detail else ''}")
        self.steps.append((name, ok, detail))
        return ok

    def uv(self) -> str:
        """A uv to install with: the one on PATH, else one installed from PyPI for this check."""
        if self.uv_path is None:
            self.uv_path = shutil.which("uv")
        if self.uv_path is None:
            tool = self.work / "uv-tool"
            run(sys.executable, "-m", "venv", str(tool))
            run(str(tool / "bin" / "python"), "-m", "pip", "install", "--quiet", "uv")
            self.uv_path = str(tool / "bin" / "uv")
        return self.uv_path

    def install(self, installer: str, file: Path) -> str:
        venv = self.work / f"venv-{installer}"
        started = time.monotonic()
        if installer == "uv":
            uv = self.uv()
            self.figures["uv version"] = run(uv, "--version").strip()
            started = time.monotonic()  # the install itself, not fetching uv
            run(uv, "venv", "--quiet", "--python", sys.executable, str(venv), env=self.env)
            run(
                uv,
                "pip",
                "install",
                "--quiet",
                "--python",
                str(venv / "bin" / "python"),
                "-r",
                str(file),
                env=self.env,
            )
        else:
            run(sys.executable, "-m", "venv", str(venv))
            self.figures["pip version"] = run(str(venv / "bin" / "pip"), "--version").split()[1]
            run(str(venv / "bin" / "pip"), "install", "--quiet", "-r", str(file), env=self.env)
        seconds = round(time.monotonic() - started, 1)
        probe = json.loads(run(str(venv / "bin" / "python"), "-c", PROBE).strip().splitlines()[-1])
        wrong = problems(probe, self.wanted)
        if wrong:
            raise CheckFailed("; ".join(wrong))
        self.figures[f"{installer}: install seconds"] = seconds
        self.figures[f"{installer}: environment MB"] = size_mb(venv)
        self.figures[f"{installer}: packages"] = len(probe["installed"])
        return (
            f"torch {probe['torch']}, CUDA {probe['cuda']}, no nvidia-*/triton, "
            f"{len(self.wanted)} pins as pinned, {len(probe['installed'])} packages, {seconds} s"
        )

    def control(self) -> str:
        file = self.work / "requirements-plain-torch.txt"
        file.write_text(plain_torch(self.requirements))
        compiled = run(
            self.uv(),
            "pip",
            "compile",
            "--quiet",
            str(file),
            "--python-version",
            "3.11",
            "--python-platform",
            "x86_64-manylinux_2_28",
            env=self.env,
        )
        cuda = cuda_packages(compiled)
        if not cuda:
            raise CheckFailed(
                "a plain torch pin resolved without CUDA packages: the control failed"
            )
        self.figures["plain torch: CUDA packages"] = len(cuda)
        return (
            f"a plain torch==2.13.0 brings {len(cuda)} CUDA packages ({', '.join(cuda[:3])}, ...)"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--page",
        choices=("auto", "standin", "real"),
        default="auto",
        help="PyTorch's page of CPU wheels: the real one when it answers (auto), or the stand-in",
    )
    ap.add_argument(
        "--wheels",
        type=Path,
        default=None,
        help="a folder with the CPU torch wheel, for the stand-in (default: pip's find-links)",
    )
    ap.add_argument("--json", action="store_true", help="print the figures as JSON at the end")
    args = ap.parse_args(argv)
    text = REQUIREMENTS.read_text()
    with (
        tempfile.TemporaryDirectory(prefix="hograd-cloud-") as tmp,
        contextlib.ExitStack() as stack,
    ):
        work = Path(tmp)
        try:
            real = args.page == "real" or (args.page == "auto" and reachable(TORCH_PAGE))
            if real:
                file_text = with_page(text, TORCH_PAGE)
                print(f"PyTorch's page: {TORCH_PAGE}")
            else:
                wheels = args.wheels or pip_find_links()
                if wheels is None:
                    raise CheckFailed(
                        f"{TORCH_PAGE} cannot be reached, and no folder holds {TORCH_WHEEL} "
                        "for the stand-in (--wheels)"
                    )
                page = standin_page(wheels, work / "site")
                address = stack.enter_context(serve(work / "site"))
                url = f"{address}/{page.relative_to(work / 'site').as_posix()}/"
                file_text = with_page(text, url)
                print(
                    f"PyTorch's page cannot be reached: a stand-in at {url} (the wheel from {wheels})"
                )
        except CheckFailed as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        file = work / "requirements.txt"
        file.write_text(file_text)
        check = Check(work, text)
        check.figures["PyTorch's page"] = "real" if real else "stand-in"
        check.step("uv installs the CPU torch", lambda: check.install("uv", file))
        check.step("pip installs the CPU torch", lambda: check.install("pip", file))
        check.step("the control: a plain torch pin brings CUDA", check.control)
    if args.json:
        print(json.dumps(check.figures, indent=2, ensure_ascii=False))
    else:
        for name, value in check.figures.items():
            print(f"  {name}: {value}")
    return 0 if all(ok for _, ok, _ in check.steps) else 1


if __name__ == "__main__":
    sys.exit(main())
