"""The ``graph`` verb's arguments, apart from :mod:`.graph` so that ``--help`` loads no torch."""

from __future__ import annotations

import argparse

from hograd_ui.i18n import tr

__all__ = ["add_parser"]


def add_parser(sub: argparse._SubParsersAction, lang: str = "en") -> None:
    """Add the ``graph`` verb to the command line's subcommands, its help in ``lang``."""
    g = sub.add_parser(
        "graph",
        lang=lang,
        help=tr("cli.help.graph", lang),
        epilog=tr("cli.help.graph.epilog", lang),
    )
    g.add_argument("function", help=tr("cli.help.graph.function", lang))
    g.add_argument("--order", type=int, default=2, help=tr("cli.help.graph.order", lang))
    g.add_argument("--at", default=None, help=tr("cli.help.graph.at", lang))
    g.add_argument(
        "--v", "--vector", dest="vector", default=None, help=tr("cli.help.graph.vector", lang)
    )
    g.add_argument("--vars", default=None, help=tr("cli.help.graph.vars", lang))
    g.add_argument("--saved", action="store_true", help=tr("cli.help.graph.saved", lang))
    g.add_argument("--record", action="store_true", help=tr("cli.help.graph.record", lang))
    g.add_argument("--direction", default="TB", help=tr("cli.help.graph.direction", lang))
    g.add_argument("--torchviz", action="store_true", help=tr("cli.help.graph.torchviz", lang))
    g.add_argument("--svg", default=None, metavar="FILE", help=tr("cli.help.graph.svg", lang))
    g.add_argument("--steps", default=None, metavar="DIR", help=tr("cli.help.graph.steps", lang))
    flags = g.add_argument_group(tr("cli.help.graph.flags", lang))
    flags.add_argument("--cpp", action="store_true", help=tr("cli.help.graph.cpp", lang))
    flags.add_argument(
        "--create-graph", action="store_true", help=tr("cli.help.graph.create_graph", lang)
    )
    flags.add_argument("--retain-graph", default="None", help=tr("cli.help.graph.retain", lang))
    flags.add_argument(
        "--allow-unused", action="store_true", help=tr("cli.help.graph.allow_unused", lang)
    )
    flags.add_argument(
        "--materialize-grads", action="store_true", help=tr("cli.help.graph.materialize", lang)
    )
    flags.add_argument(
        "--unused-input", action="store_true", help=tr("cli.help.graph.unused_input", lang)
    )
    flags.add_argument("--action", default="next", help=tr("cli.help.graph.action", lang))
