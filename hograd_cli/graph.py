"""The ``graph`` verb of the command line: an autograd graph as DOT, for slides.

    python -m hograd_cli graph "x**3" --order 2 --at 0.7            # DOT on stdout
    python -m hograd_cli graph "x**3" --order 2 --at 0.7 --svg g.svg  # needs Graphviz's dot
    python -m hograd_cli graph "x**3" --order 2 --at 0.7 --torchviz   # make_dot's DOT
    python -m hograd_cli graph "x**3" --order 3 --at 0.7 --steps slides  # pass_0.svg ... pass_3.svg
    python -m hograd_cli graph "w1**2*sin(w2)" --at 1,pi/2 --v 0.5,1  # the graph of H v
    python -m hograd_cli graph "x**3" --at 2 --cpp --create-graph --action again  # flag lab, C++
    python -m hograd_cli graph "w1**2*sin(w2)" --at 1,pi/2 --v 0.5,1 --cpp        # H v, C++

``--steps DIR`` writes the graph after each pass as its own numbered SVG file (``pass_0.svg``
for the forward pass, ``pass_k.svg`` after the k-th backward pass, the newest pass outlined),
one slide per step, as the page's "next pass" button shows them (the page offers the same
files as a zip).

``--cpp`` prints a C++ (LibTorch) program instead of the drawing. One variable: the flag lab's,
for the flag settings given (``--create-graph``, ``--retain-graph``, ``--allow-unused``,
``--materialize-grads``, ``--unused-input``, ``--action``), the twin of the script the graph
page shows for them (:func:`hograd_core.flaglab.cpp.flag_cpp`). Two or more: the twin of the
script of the Hessian-vector product's graph (:func:`hograd_core.cpp_code.hvp_graph_cpp`).

One variable: the graph of f, f', ..., f^(order) pass by pass, as the graph page draws it
(:func:`hograd_core.graphs.graph_lab`). Two or more: the double-backward graph of one
Hessian-vector product (:func:`hograd_core.hvp_graph.hvp_graph`). The DOT comes from
:mod:`hograd_core.graph_dot` with the words in the command line's language (``--lang``), so
it is the page's drawing.

It may start a program (``dot``, for ``--svg``) and load torchviz (which loads graphviz): it
runs only in the command line's own process, never in the server (nothing under hograd_core,
hograd_serving, hograd_ui, hograd_labs or pages imports hograd_cli; an import contract).
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import torch

from hograd_core.cpp_code import hvp_graph_cpp
from hograd_core.errors import ArgumentError, BudgetError
from hograd_core.flaglab.cpp import flag_cpp
from hograd_core.flaglab.flags import FlagSettings, run_flags
from hograd_core.graph_dot import PASS_CUES, Legend, Words, tensor_dot, view_dot
from hograd_core.graphs import GRAPH_BUDGET, graph_lab
from hograd_core.hvp_graph import hvp_graph, numbers
from hograd_core.language import Function, parse
from hograd_ui.i18n import tr

from .graph_args import add_parser

__all__ = ["add_parser", "run_graph"]

#: The legend's names of the H v graph's four stages (the pass names of one variable's graph
#: are the app's, ``pass.{k}``).
STAGES = ("cli.graph.stage.0", "cli.graph.stage.1", "cli.graph.stage.2", "cli.graph.stage.3")
SVG_SECONDS = 30.0  # within the drawing limit dot needs about 1 s


def _function(args: argparse.Namespace) -> Function:
    names = None
    if args.vars is not None:
        names = tuple(name.strip() for name in args.vars.split(","))
    return parse(args.function, names)


def _pass_legend(
    per_pass: tuple[int, ...], names: tuple[str, ...], outlined: int, lang: str
) -> Legend:
    """The drawing's legend in ``lang``: per pass its name, node count and border in words."""
    cells = tuple(
        (
            k,
            tr(
                "cli.graph.cell_one" if n == 1 else "cli.graph.cell",
                lang,
                name=names[k],
                n=n,
                cue=tr(f"pass.cue.{k}", lang),
            ),
        )
        for k, n in enumerate(per_pass)
    )
    return Legend(cells, tr("cli.graph.shapes", lang), outlined)


def _pass_names(lang: str) -> tuple[str, ...]:
    """The passes' names in ``lang``: "forward pass", "1st backward pass", ..."""
    return tuple(tr(f"pass.{k}", lang) for k in range(len(PASS_CUES)))


def _words(lang: str) -> Words:
    """What a tensor drawing writes into its nodes, in ``lang``."""
    return Words(
        tr("drawing.freed", lang), tr("drawing.modified", lang), tr("drawing.raised", lang)
    )


def _too_large(count: int) -> BudgetError:
    return BudgetError("graphvars.cli.too_large", nodes=f"{count:,}", limit=GRAPH_BUDGET.max_draw)


def _one_variable(fn: Function, args: argparse.Namespace) -> str:
    if args.vector is not None:
        raise ArgumentError("graphvars.cli.vector")
    counted = fn if fn.variables else parse("x")  # a constant f is drawn as a function of x
    x0 = float(numbers(args.at or "0.7", "point", counted)[0])
    lab = graph_lab(fn, x0, args.order)
    view = lab.view(args.order, show_saved=args.saved)
    if args.torchviz:
        if not view.drawable:  # the same size guard as the pass-coloured view
            raise _too_large(len(view.nodes))
        return _torchviz_one(fn, lab.variable, x0, args.order)
    if not view.drawable:
        raise _too_large(len(view.nodes))
    legend = _pass_legend(view.per_pass, _pass_names(args.lang), args.order, args.lang)
    return view_dot(view, direction=args.direction, legend=legend)


def step_views(fn: Function, x0: float, order: int, saved: bool) -> list:
    """The graph after each pass, 0..order (``view.order`` is its newest pass)."""
    lab = graph_lab(fn, x0, order)
    views = [lab.view(k, show_saved=saved) for k in range(order + 1)]
    for view in views:
        if not view.drawable:
            raise _too_large(len(view.nodes))
    return views


def _steps(fn: Function, args: argparse.Namespace) -> str:
    """Each pass's drawing laid out into ``args.steps``/pass_k.svg; the lines to print."""
    if len(fn.variables) >= 2:
        raise ArgumentError("graph.cli.steps_one", names=", ".join(fn.variables))
    for option in ("torchviz", "cpp", "svg"):
        if getattr(args, option):
            raise ArgumentError("graph.cli.steps_with", option=f"--{option}")
    if shutil.which("dot") is None:
        raise ArgumentError("graph.cli.steps_no_dot")
    counted = fn if fn.variables else parse("x")
    x0 = float(numbers(args.at or "0.7", "point", counted)[0])
    views = step_views(fn, x0, args.order, args.saved)
    folder = Path(args.steps)
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for view in views:
        legend = _pass_legend(view.per_pass, _pass_names(args.lang), view.order, args.lang)
        path = folder / f"pass_{view.order}.svg"
        lines.append(
            _svg(view_dot(view, direction=args.direction, legend=legend), str(path), args.lang)
        )
    return "\n".join(lines)


def _several(fn: Function, args: argparse.Namespace) -> str:
    if args.at is None or args.vector is None:
        raise ArgumentError("graphvars.cli.point", names=", ".join(fn.variables))
    result = hvp_graph(fn, args.at, args.vector, args.record)
    if not result.graph.drawable:
        raise _too_large(len(result.graph.nodes))
    if args.torchviz:
        return _torchviz_hvp(fn, args.at, args.vector, args.record)
    stages = tuple(tr(key, args.lang) for key in STAGES)
    legend = _pass_legend(result.graph.per_pass, stages, -1, args.lang)
    return tensor_dot(result.graph, _words(args.lang), legend=legend)


def _make_dot(outputs: list[torch.Tensor], params: dict[str, torch.Tensor]) -> str:
    from torchviz import make_dot  # loads graphviz: only in this process, only when asked

    drawn = tuple(t for t in outputs if t.grad_fn is not None)
    return make_dot(drawn, params=params).source


def _torchviz_one(fn: Function, variable: str, x0: float, order: int) -> str:
    """make_dot of (y, dy, ..., d^k y), built with the same calls as the graph lab."""
    x = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
    rows = [fn.torch({variable: x} if fn.variables else {})]
    for _ in range(order):
        if not rows[-1].requires_grad:
            break  # a constant: the next derivative is 0 and has no graph
        (row,) = torch.autograd.grad(rows[-1], x, create_graph=True, materialize_grads=True)
        rows.append(row)
    return _make_dot(rows, {variable: x})


def _torchviz_hvp(fn: Function, point: str, vector: str, record: bool) -> str:
    """make_dot of (f, g, g·v, Hv), built with the same calls as :func:`hvp_graph`."""
    w = numbers(point, "point", fn)
    v = numbers(vector, "vector", fn)
    leaves = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in w]
    f = fn.torch(dict(zip(fn.variables, leaves, strict=True)))
    outputs = [f]
    if f.requires_grad:
        g = torch.autograd.grad(f, leaves, create_graph=True, materialize_grads=True)
        gv = torch.dot(torch.stack(g), torch.tensor(v, dtype=torch.float64))
        outputs += [*g, gv]
        if gv.requires_grad:
            outputs += torch.autograd.grad(
                gv, leaves, create_graph=record, retain_graph=True, materialize_grads=True
            )
    return _make_dot(outputs, dict(zip(fn.variables, leaves, strict=True)))


def _flag_cpp(fn: Function, args: argparse.Namespace) -> str:
    """The C++ twin of the flag lab's script for these settings (the run itself makes the
    script, as on the page; .backward() takes no allow_unused or materialize_grads)."""
    retain = {"None": None, "True": True, "False": False}
    if args.retain_graph not in retain:
        raise ArgumentError("graph.flag.cli.retain", got=args.retain_graph)
    grad_call = args.action != "backward"
    settings = FlagSettings(
        args.create_graph,
        retain[args.retain_graph],
        args.allow_unused and grad_call,
        args.materialize_grads and grad_call,
        args.unused_input,
        args.action,
    )
    x0 = float(numbers(args.at or "0.7", "point", parse("x"))[0]) if len(fn.variables) < 2 else 0
    return flag_cpp(run_flags(fn, x0, settings).snippet, fn)


def _svg(source: str, path: str, lang: str) -> str:
    """Lay out ``source`` with Graphviz's dot into ``path``; the line to print."""
    import subprocess  # the command line's own process only (see the module doc)

    exe = shutil.which("dot")
    if exe is None:
        raise ArgumentError("graphvars.cli.no_dot")
    try:
        done = subprocess.run(
            [exe, "-Tsvg", "-o", path],
            input=source.encode(),
            capture_output=True,
            timeout=SVG_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired as err:
        raise BudgetError("graph.budget.svg_timeout", seconds=f"{SVG_SECONDS:g}") from err
    if done.returncode != 0:
        raise BudgetError("graph.budget.svg_failed", detail=done.stderr.decode()[:200])
    return tr("cli.graph.wrote", lang, path=path)


def run_graph(args: argparse.Namespace) -> str:
    """What ``graph`` prints: the DOT source, or the line saying where the SVG went.

    Raises:
        HogradError: a bad function, point, order or direction, or a graph over a budget.
    """
    fn = _function(args)
    if args.steps is not None:
        return _steps(fn, args)
    if args.cpp and len(fn.variables) >= 2:
        if args.at is None or args.vector is None:
            raise ArgumentError("graphvars.cli.point", names=", ".join(fn.variables))
        shown = hvp_graph(fn, args.at, args.vector, args.record)
        program = hvp_graph_cpp(fn, shown.point, shown.vector, args.record, shown.reaches)
        return program.rstrip("\n")
    if args.cpp:
        return _flag_cpp(fn, args).rstrip("\n")
    several = len(fn.variables) >= 2
    source = _several(fn, args) if several else _one_variable(fn, args)
    return _svg(source, args.svg, args.lang) if args.svg else source.rstrip("\n")
