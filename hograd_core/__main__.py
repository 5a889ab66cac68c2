"""``python -m hograd_core ...``: the command line, which lives in :mod:`hograd_cli`.

The core computes; the command line (argument parsing, printing, Graphviz's ``dot``, English
messages) is a face over it. This shim keeps the old spelling working for teachers' scripts, and
is the one import from the core out of it (pyproject.toml names it as the contracts' exception).
"""

import sys

from hograd_cli.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
