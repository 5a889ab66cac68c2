"""hograd_serving/server_fixes.py: Nagle's algorithm is switched off on the server's websockets.

Streamlit binds its listening socket as ``socket.socket(family)`` (proto 0), and asyncio sets
TCP_NODELAY only on sockets whose proto is IPPROTO_TCP, so every rerun stalled ~40 ms on a
delayed acknowledgement. The check runs in a fresh interpreter: the fix is process-wide.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent(
    """
    import asyncio, json, socket

    def listener():
        sock = socket.socket(family=socket.AF_INET)  # as Streamlit 1.67 binds it
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        sock.setblocking(False)
        return sock

    async def accepted_nodelay(patch_between=False):
        seen = []
        async def handle(reader, writer):
            seen.append(writer.get_extra_info("socket"))
        sock = listener()
        server = await asyncio.start_server(handle, sock=sock)
        port = sock.getsockname()[1]
        _, w = await asyncio.open_connection("127.0.0.1", port)
        while not seen:
            await asyncio.sleep(0.01)
        if patch_between:
            from hograd_serving.server_fixes import disable_nagle
            disable_nagle()
        value = seen[0].getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        w.close(); server.close()
        return value

    from hograd_serving.server_fixes import nagle_disabled
    out = {"before": asyncio.run(accepted_nodelay()), "disabled_before": nagle_disabled()}
    out["open_connection_fixed"] = asyncio.run(accepted_nodelay(patch_between=True))
    out["after"] = asyncio.run(accepted_nodelay())
    out["disabled_after"] = nagle_disabled()
    from hograd_serving.server_fixes import disable_nagle
    disable_nagle()  # idempotent
    print(json.dumps(out))
    """
)


def test_websocket_connections_get_tcp_nodelay() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=60,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    import json

    out = json.loads(done.stdout)
    # The premise: without the fix, a connection accepted on such a socket keeps Nagle on.
    assert out["before"] == 0 and not out["disabled_before"]
    # A connection already open when the fix runs is switched, and so is every later one.
    assert out["open_connection_fixed"] != 0
    assert out["after"] != 0 and out["disabled_after"]


def test_the_app_shortens_turns_on_the_interpreter_lock() -> None:
    """app.py, on its first run in a process, makes a turn on the interpreter lock 0.5 ms
    instead of Python's 5 ms (the latency this buys is measured by benchmarks/load.py)."""
    script = textwrap.dedent(
        """
        import json, sys
        before = sys.getswitchinterval()
        from streamlit.testing.v1 import AppTest
        at = AppTest.from_file("app.py", default_timeout=120).run()
        print(json.dumps({"before": before, "after": sys.getswitchinterval(),
                          "exceptions": [e.message for e in at.exception]}))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=180,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    import json

    from hograd_serving.server_fixes import INTERPRETER_TURN_SECONDS

    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["exceptions"] == []
    assert out["before"] == 0.005  # Python's default: the premise
    assert out["after"] == INTERPRETER_TURN_SECONDS == 0.0005
