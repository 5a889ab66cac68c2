"""hograd_cli: the command line, a thin face over the kernel (``hograd_core``) for teachers'
scripts: ``python -m hograd_cli <verb> ...`` (:mod:`.__main__`; the ``graph`` verb in
:mod:`.graph`, its arguments in :mod:`.graph_args`; the ``decode`` verb in :mod:`.decode`; the
``run`` verb in :mod:`.run`). ``python -m hograd_core ...`` runs the same command line.

A verb is a pair in ``__main__.VERBS``: a function that adds its parser (loading no torch, so
that ``--help`` answers at once) and one that runs it and returns the exit status (importing
what it computes with). A new verb is a module with those two functions and one line there.

It runs in its own process only: it may start Graphviz's ``dot`` (``graph --svg``), and it
turns the core's errors (a key and its parameters) into text in its language (``--lang``,
:mod:`.lang`) with :func:`hograd_ui.i18n.error_text`. Nothing the server loads imports it (pyproject.toml's import
contracts).
"""
