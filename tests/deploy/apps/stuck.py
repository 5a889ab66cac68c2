"""A test app whose script runs can be made to hang, while /_stcore/health goes on answering.

Every run takes one process-wide lock, as the app's own heavy work does, and holds it while the
file HOGRAD_TEST_BLOCK + "." + the server's port exists: create the file and the next run never
finishes (nor does any run after it, since they all wait on the lock); delete it and they all
finish. The page
shows how many sessions are connected, so a test can see that a probe left none behind.
"""

import os
import threading
import time
from pathlib import Path

import streamlit as st
from streamlit.runtime import Runtime


@st.cache_resource
def lock() -> threading.Lock:
    return threading.Lock()


block = Path(f"{os.environ['HOGRAD_TEST_BLOCK']}.{st.get_option('server.port')}")
with lock():
    while block.exists():
        time.sleep(0.05)
st.title("ready")
# read only: the number of open websockets (Streamlit has no public call for it)
st.markdown(f"sessions: {Runtime.instance()._session_mgr.num_active_sessions()}")
