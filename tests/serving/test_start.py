"""hograd_serving.start(), which app.py calls on every run and which acts once per process."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.apptest import APP_TEST_CEILING

ROOT = Path(__file__).resolve().parents[2]


def test_the_app_shortens_turns_on_the_interpreter_lock_and_disables_nagle() -> None:
    """app.py, on its first run in a process, makes a turn on the interpreter lock 0.5 ms
    instead of Python's 5 ms (the latency this buys is measured by benchmarks/load.py) and
    switches Nagle's algorithm off for later connections (hograd_serving/patches.py)."""
    script = textwrap.dedent(
        """
        import json, sys
        before = sys.getswitchinterval()
        from hograd_serving.patches import nagle_disabled
        nagle_before = nagle_disabled()
        from streamlit.testing.v1 import AppTest
        from tests.apptest import APP_TEST_CEILING
        at = AppTest.from_file("app.py", default_timeout=APP_TEST_CEILING).run()
        print(json.dumps({"before": before, "after": sys.getswitchinterval(),
                          "nagle_before": nagle_before, "nagle_after": nagle_disabled(),
                          "exceptions": [e.message for e in at.exception]}))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=APP_TEST_CEILING,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr

    from hograd_serving import INTERPRETER_TURN_SECONDS

    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["exceptions"] == []
    assert out["before"] == 0.005  # Python's default: the premise
    assert out["after"] == INTERPRETER_TURN_SECONDS == 0.0005
    assert not out["nagle_before"] and out["nagle_after"]
