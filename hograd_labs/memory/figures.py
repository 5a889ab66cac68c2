"""The memory lab's chart and tables, from :mod:`.compute`'s counts, in a language; the
chart draws them for a projector."""

from __future__ import annotations

import ast
import inspect
import textwrap

import pandas as pd

from hograd_ui.i18n import tr
from hograd_ui.plot_kit import BLUE, RED, axis_props, figure_layout
from hograd_ui.plotting import plain_figure

from .compute import MemoryRun, retain

__all__ = ["kib", "orders_figure", "orders_rows", "retain_rows"]

# Every key a whole literal (the locale test finds used keys that way).
ORDER_COLUMNS = ("memory.col.pass", "memory.col.tensors", "memory.col.saved", "memory.col.held")
RETAIN_KEYS = {
    "forward": "memory.retain.forward",
    "retain": "memory.retain.retain",
    "second": "memory.retain.second",
    "again": "memory.retain.again",
    "deleted": "memory.retain.deleted",
}
RETAIN_COLUMNS = ("memory.col.step", "memory.col.what", "memory.col.held")
#: The chart's two bars per pass, from the kit's checked palette; the held bars are hatched as
#: well, so that the two differ without colour too (WCAG 1.4.1); the legend draws both.
SAVED, HELD = BLUE, RED
HELD_PATTERN = {"shape": "/", "fgcolor": "#ffffff", "size": 8, "solidity": 0.25}


def _retain_code() -> dict[str, str]:
    """Each step of the retain_graph story as the code that ran it: the statements of
    :func:`.compute.retain` before each ``steps.append((step, ...))``, joined by ``"; "``."""
    source = textwrap.dedent(inspect.getsource(retain))
    (story,) = [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.With)]
    code: dict[str, str] = {}
    ran: list[str] = []
    for statement in story.body:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if isinstance(call, ast.Call) and ast.unparse(call.func) == "steps.append":
            code[ast.literal_eval(call.args[0].elts[0])] = "; ".join(ran)
            ran = []
        else:
            ran.append(ast.get_source_segment(source, statement) or "")
    return code


#: Each step of the retain_graph story as code (the same in every language).
RETAIN_CODE = _retain_code()


def kib(size: int) -> str:
    """Bytes as the page prints them: exact, with KiB beside (1 KiB = 1024 bytes)."""
    return f"{size:,} B ({size / 1024:,.1f} KiB)"


def _pass(k: int, lang: str) -> str:
    return tr("memory.pass.forward", lang) if k == 0 else tr("memory.pass.order", lang, k=k)


def orders_rows(run: MemoryRun, lang: str) -> pd.DataFrame:
    head = [tr(key, lang) for key in ORDER_COLUMNS]
    rows = zip(run.saved_counts, run.pass_bytes, run.live_after, strict=True)
    return pd.DataFrame(
        [
            dict(zip(head, (_pass(k, lang), str(n), kib(s), kib(h)), strict=True))
            for k, (n, s, h) in enumerate(rows)
        ]
    )


def retain_rows(run: MemoryRun, lang: str) -> pd.DataFrame:
    head = [tr(key, lang) for key in RETAIN_COLUMNS]
    return pd.DataFrame(
        [
            dict(
                zip(head, (RETAIN_CODE[step], tr(RETAIN_KEYS[step], lang), kib(held)), strict=True)
            )
            for step, held in run.retain_steps
        ]
    )


def orders_figure(run: MemoryRun, lang: str) -> object:
    """Bytes saved by each pass and held after it, one pair of bars per pass."""
    names = [_pass(k, lang) for k in range(len(run.pass_bytes))]
    bars = [
        {
            "type": "bar",
            "x": names,
            "y": list(run.pass_bytes),
            "name": tr("memory.fig.saved", lang),
            "marker": {"color": SAVED},
        },
        {
            "type": "bar",
            "x": names,
            "y": list(run.live_after),
            "name": tr("memory.fig.held", lang),
            "marker": {"color": HELD, "pattern": HELD_PATTERN},
        },
    ]
    return plain_figure(
        bars,
        **figure_layout(380),
        barmode="group",
        xaxis=axis_props(None),
        yaxis=axis_props(tr("memory.fig.bytes", lang)),
    )
