"""Streamlit's own plotly chart, the oracle of tests/e2e/test_chart_browser.py's theme test.

Every chart of the app is drawn by hograd_ui/parts/chart.py, which merges Streamlit's chart
theme into the figure on the server; Streamlit's front end merges the same theme into an
``st.plotly_chart``'s figure in the browser. This script draws one such chart, with the
app's presentation-mode style when ``?present=1`` (the theme is in rem: its root font).
"""

import plotly.graph_objects as go
import streamlit as st

from hograd_ui.parts.present import presentation_css

if st.query_params.get("present") == "1":
    st.html(presentation_css())  # our constant CSS, as app.py draws it
st.plotly_chart(go.Figure(go.Scatter(x=[0, 1], y=[0, 1])))
