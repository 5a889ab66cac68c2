"""hograd_cli: the command line, a thin face over the kernel (``hograd_core``) for teachers'
scripts: ``python -m hograd_cli <verb> ...`` (:mod:`.__main__`; the ``graph`` verb in
:mod:`.graph`). ``python -m hograd_core ...`` runs the same command line.

It runs in its own process only: it may start Graphviz's ``dot`` (``graph --svg``), and it
turns the core's errors (a key and its parameters) into English text with
:func:`hograd_ui.i18n.error_text`. Nothing the server loads imports it (pyproject.toml's import
contracts).
"""
