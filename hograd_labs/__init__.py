"""The labs: one folder each, on the shared kernel in ``hograd_core``.

A lab keeps together everything that is only its own::

    hograd_labs/<lab>/
        __init__.py    LAB: the lab's declaration (hograd_ui/lab.py): its URL keys, its
                       runtime-built string keys, its default views, the views other pages
                       draw. It imports nothing else; pages/__init__.py collects them.
        compute.py     what runs: torch, numpy, math and the kernel (hograd_core); no streamlit,
                       plotly, threads or processes (an import-linter contract). Where the lab
                       offers a script, this file is the script (the code shown is the code
                       that runs).
        figures.py     its drawings (plotly, graphviz DOT); language and projector setting
                       come in as arguments
        cached.py      its st.cache_data calls
        page.py        draw(): the Streamlit view, called by a page script in pages/
        en.toml        its strings, keys prefixed with the lab's name ...
        zh.toml        ... and the same keys in Chinese (hograd_ui.i18n merges every lab's)

Labs never import each other (an import-linter independence contract); what two labs share
belongs in the kernel (``hograd_core``) or the presentation helpers (``hograd_ui``). The
compute module is tested without Streamlit in ``tests/labs/``.
"""
