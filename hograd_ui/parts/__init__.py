"""The pages' parts: widget helpers (ui.py), links and presentation mode (links.py,
present.py), the 2-D charts (chart.py, chart.js), downloads, the exact entries, the lesson's
steps and each tab of the "why" page.

They live here, not in pages/, because Streamlit lists every Python file in pages/ as a page
until app.py's router has run: a fresh server's first deep link showed these modules' names in
the sidebar. pages/ holds the page scripts only.
"""
