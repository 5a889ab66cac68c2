"""A test page that is refused as busy while a file exists, through the app's own message.

Each run shows the run's number; while HOGRAD_TEST_BUSY names a file that exists, the run
shows hograd_ui.parts.ui.show_error of the gate's "busy" refusal (and so asks again by itself);
once the file is gone it shows "computed". Served by tests/deploy/test_busy_again.py.
"""

import os
import sys
from pathlib import Path

import streamlit as st

sys.path.insert(1, str(Path(__file__).resolve().parents[3]))

from hograd_serving.gate import BusyError
from hograd_ui.parts.ui import show_error

st.session_state["test.runs"] = st.session_state.get("test.runs", 0) + 1
st.markdown(f"run {st.session_state['test.runs']}")
if Path(os.environ["HOGRAD_TEST_BUSY"]).exists():
    show_error(BusyError("budget.busy", slots=2))
else:
    st.markdown("computed")
