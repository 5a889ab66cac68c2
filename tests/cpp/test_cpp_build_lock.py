"""Two processes that want the same C++ program (pytest-xdist's workers) compile it once: the
second waits on the folder's lock and then finds the program built. No compiler runs here: the
compile step is replaced by one that counts its calls."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from tests import cpp_build


def _blocked_on(path: Path) -> bool:
    """Whether some process waits for an flock on ``path`` (Linux's /proc/locks: "->")."""
    inode = os.stat(path).st_ino
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        if "->" in fields and fields[-3].rsplit(":", 1)[-1] == str(inode):
            return True
    return False


def test_a_second_build_of_the_same_source_waits_and_compiles_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not Path("/proc/locks").exists():
        pytest.skip("no /proc/locks to see a waiting build")
    monkeypatch.setattr(cpp_build, "ARTIFACTS", tmp_path)
    monkeypatch.setattr(cpp_build, "require_gpp", lambda: None)
    compiled: list[str] = []
    entered, release = threading.Event(), threading.Event()

    def fake_compile(folder: Path, source: str) -> None:
        compiled.append(source)
        if len(compiled) == 1:  # the first build holds the lock until the second waits on it
            entered.set()
            release.wait(timeout=120)
        (folder / "program").write_text("built")

    monkeypatch.setattr(cpp_build, "_compile", fake_compile)
    first = threading.Thread(target=cpp_build.build, args=("int main() {}",))
    first.start()
    assert entered.wait(timeout=120)
    (folder,) = tmp_path.iterdir()

    def let_go_when_the_second_waits() -> None:
        for _ in range(1200):  # a bound, not a time measured: 0.1 s steps until it waits
            if _blocked_on(folder / "lock"):
                break
            release.wait(timeout=0.1)
        release.set()

    watcher = threading.Thread(target=let_go_when_the_second_waits)
    watcher.start()
    second = cpp_build.build("int main() {}")  # this thread: waits, then finds it built
    first.join(), watcher.join()
    assert second == folder / "program" and second.read_text() == "built"
    assert len(compiled) == 1
