"""A flag-lab request as data, for a run in a fresh process.

The server sends the request (a dict of plain values) to a fresh process, which runs
:func:`outcome_json` and answers with JSON; :func:`decode` turns that back into a
:class:`~hograd_core.flaglab.flags.FlagOutcome`. Nothing here starts a process.
"""

from __future__ import annotations

import json
from dataclasses import asdict

from ..graph_trace import GraphEdge, GraphNode, TensorGraph
from ..language import parse
from .cases import run_steps
from .flags import FlagSettings, run_flags_here
from .record import FlagOutcome, StepReport, TensorReport

__all__ = ["outcome_json", "decode"]


def outcome_json(payload: dict) -> str:
    """Run ``payload`` (as built by ``run_flags`` or ``run_case``) here; its outcome as JSON."""
    if payload["kind"] == "case":
        outcome = run_steps(payload["case"], payload["variant"])
    else:
        fn = parse(payload["text"], payload["variables"] or None)
        outcome = run_flags_here(fn, payload["x0"], FlagSettings(**payload["settings"]))
    return json.dumps(asdict(outcome))


def decode(text: str) -> FlagOutcome:
    """The :class:`FlagOutcome` that :func:`outcome_json` wrote as ``text``."""
    data = json.loads(text)
    steps = tuple(
        StepReport(
            **{
                **s,
                "output": tuple(s["output"]),
                "results": tuple(TensorReport(**r) for r in s["results"]),
            }
        )
        for s in data.pop("steps")
    )
    params = tuple(tuple(pair) for pair in data.pop("params"))
    first_call = tuple(data.pop("first_call"))
    views = tuple(tuple(pair) for pair in data.pop("views"))
    drawing = data.pop("drawing")
    if drawing is not None:
        drawing = TensorGraph(
            **{
                **{k: tuple(v) if isinstance(v, list) else v for k, v in drawing.items()},
                "nodes": tuple(GraphNode(**n) for n in drawing["nodes"]),
                "edges": tuple(GraphEdge(**e) for e in drawing["edges"]),
            }
        )
    return FlagOutcome(
        **{k: tuple(v) if isinstance(v, list) else v for k, v in data.items()},
        steps=steps,
        params=params,
        drawing=drawing,
        first_call=first_call,
        views=views,
    )
