"""The ``graph`` verb's arguments, apart from :mod:`.graph` so that ``--help`` loads no torch."""

from __future__ import annotations

import argparse

__all__ = ["add_parser"]


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add the ``graph`` verb to the command line's subcommands."""
    g = sub.add_parser(
        "graph",
        help="the autograd graph as DOT (or SVG), for slides",
        epilog='example: python -m hograd_cli graph "x**3" --order 2 --at 0.7 > graph.dot',
    )
    g.add_argument(
        "function",
        help="the function: one variable (x**3) or several (w1**2*sin(w2)); quote it in the "
        "shell; a leading minus is read as part of it",
    )
    g.add_argument("--order", type=int, default=2, help="one variable: 0 to 6 (default 2)")
    g.add_argument("--at", default=None, help="x0 (default 0.7), or w: 1,pi/2")
    g.add_argument("--v", "--vector", dest="vector", default=None, help="v: 0.5,1 (2+ variables)")
    g.add_argument("--vars", default=None, help="the variables' order, e.g. w1,w2")
    g.add_argument("--saved", action="store_true", help="draw saved tensors (one variable)")
    g.add_argument("--record", action="store_true", help="record the 2nd backward (H v)")
    g.add_argument("--direction", default="TB", help="TB (default) or LR (one variable)")
    g.add_argument("--torchviz", action="store_true", help="torchviz make_dot's DOT instead")
    g.add_argument("--svg", default=None, metavar="FILE", help="write SVG (needs dot)")
    g.add_argument(
        "--steps",
        default=None,
        metavar="DIR",
        help="one variable: each pass as DIR/pass_k.svg, for slides (needs dot)",
    )
    flags = g.add_argument_group("C++, with --cpp: the flag lab (one variable) or H v (several)")
    flags.add_argument("--cpp", action="store_true", help="the C++ (LibTorch) program instead")
    flags.add_argument("--create-graph", action="store_true")
    flags.add_argument("--retain-graph", default="None", help="None (default), True or False")
    flags.add_argument("--allow-unused", action="store_true")
    flags.add_argument("--materialize-grads", action="store_true")
    flags.add_argument("--unused-input", action="store_true", help="also an input z y ignores")
    flags.add_argument("--action", default="next", help="next (default), again or backward")
