"""A test app whose script runs can be made to hang, while /_stcore/health goes on answering.

Every run takes the floor (hograd_serving.floor, as app.py's runs do) and one process-wide
lock, as the app's own heavy work does, and holds them while the file HOGRAD_TEST_BLOCK + "." +
the server's port exists (empty, or holding this server's process id, so that a new server on
the same port is not blocked): create the file and the next run never finishes (nor does any
run after it, since they all wait for it); delete it and they all finish. HOGRAD_TEST_FLOOR_SECONDS
sets how long a run may hold the floor before the server's health endpoint calls it stuck. The
page shows how many sessions are connected, so a test can see that a probe left none behind;
with ``?heavy=1`` each run also starts one heavy computation (a browser may start 3 a minute)
and shows how that went. Served with the app's middleware by apps/stuck_asgi.py.
"""

import os
import sys
import threading
import time
from pathlib import Path

import streamlit as st
from streamlit.runtime import Runtime

sys.path.insert(1, str(Path(__file__).resolve().parents[3]))

from hograd_serving import floor, gate

floor.STUCK_SECONDS = float(os.environ.get("HOGRAD_TEST_FLOOR_SECONDS", floor.STUCK_SECONDS))
gate.PER_SESSION_MINUTE = 3


@st.cache_resource
def lock() -> threading.Lock:
    return threading.Lock()


block = Path(f"{os.environ['HOGRAD_TEST_BLOCK']}.{st.get_option('server.port')}")
with floor.script_slot():
    with lock():
        while block.exists() and block.read_text() in ("", str(os.getpid())):
            time.sleep(0.05)
    st.title("ready")
    if "heavy" in st.query_params:
        try:
            with gate.heavy_work(seconds=30):
                st.markdown("heavy: ok")
        except gate.BusyError as err:
            st.markdown(f"heavy: {err.key}")
    # read only: the number of open websockets (Streamlit has no public call for it)
    st.markdown(f"sessions: {Runtime.instance()._session_mgr.num_active_sessions()}")
