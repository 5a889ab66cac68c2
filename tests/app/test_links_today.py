"""Links made before the move open the same view after it (issue 37, point 5).

:data:`TODAY` lists one link per page, per tab and per form, as the app wrote them on
2026-12-04 (before the labs moved into their folders). ``links_today.json`` holds, for each, what
the view showed then: its headings, the value of every widget of the page and the link the view
wrote back. The test opens each link in a fresh session and compares. Recorded with::

    python -m tests.app.test_links_today --record

Only re-record on purpose, when a view is meant to change, and say so in the commit.
"""

from __future__ import annotations

import json
import math
import sys
from fnmatch import fnmatch
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from pages import SITE
from tests.app.test_links import open_link, query

SNAPSHOT = Path(__file__).with_name("links_today.json")

#: (page file, link's query string, language): every page, every tab, every form.
TODAY: list[tuple[str, str, str]] = [
    ("pages/home.py", "", "en"),
    ("pages/derivatives.py", "", "en"),
    *[
        ("pages/derivatives.py", f"deriv.tab={t}", "en")
        for t in ("taylor", "symbolic", "code", "cost")
    ],
    (
        "pages/derivatives.py",
        "deriv.fn=tanh(x)&deriv.order=6&deriv.x0=0.3&deriv.method=taylor",
        "zh",
    ),
    ("pages/graph.py", "", "en"),
    ("pages/graph.py", "graph.fn=sin(x)&graph.order=3&graph.direction=LR&graph.saved=true", "zh"),
    *[
        ("pages/graph.py", f"graph.case={c}", "en")
        for c in (
            "no_create_graph",
            "freed_graph",
            "retain_default",
            "unused_input",
            "constant_trap",
            "backward_accumulates",
            "inplace",
            "nan_anomaly",
        )
    ],
    ("pages/graph.py", "graph.flag.create_graph=true&graph.flag.action=again", "en"),
    (
        "pages/graph.py",
        "graph.fn=w1**2*sin(w2)&graphvars.point=1,pi/2&graphvars.vector=0.5,1",
        "en",
    ),
    ("pages/hvp.py", "", "en"),
    *[("pages/hvp.py", f"hvp.tab={t}", "en") for t in ("hessian", "ways", "slices", "power")],
    ("pages/hvp.py", "hvp.fn=x**2%20%2B%203*y**2&hvp.p.x=1.5&hvp.v.y=-0.5", "zh"),
    *[
        ("pages/hvp.py", f"hvp.mode=network&hvp.net.tab={t}", "en")
        for t in ("top", "trace", "sharp", "hessian", "training")
    ],
    *[
        ("pages/why.py", f"why.tab={t}", "en")
        for t in ("newton", "hf", "stability", "stats", "maml", "pinn", "wgan")
    ],
    ("pages/why.py", "why.tab=maml&why.maml.amp=3&why.maml.phase=1&why.maml.adapt=2", "zh"),
    ("pages/why.py", "why.tab=pinn&why.pinn.equation=wave", "zh"),
    ("pages/why.py", "why.tab=stability&why.stability.kappa=100&why.stability.lr=0.015", "en"),
    *[("pages/lesson.py", f"step={s}", "en") for s in range(1, 8)],
    ("pages/lesson.py", "step=2&done=1", "zh"),
]


def _plain(value: object) -> object:
    """A widget's value as JSON keeps it (tuples as lists, floats rounded past noise)."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, float):
        return value if not math.isfinite(value) else round(value, 9)
    if isinstance(value, (str, int, bool)) or value is None:
        return value
    return repr(type(value).__name__)  # a date, a dataframe: its kind is what stays the same


def _parse(text: str) -> dict[str, str | list[str]]:
    from urllib.parse import parse_qs

    return {k: v[0] if len(v) == 1 else v for k, v in parse_qs(text).items()}


def view_of(page: str, link: str, lang: str) -> dict[str, object]:
    """What the link opens: the headings, the page's widget values, the link written back."""
    at: AppTest = open_link(page, _parse(link), lang)
    known = SITE.url(Path(page).stem)  # the page's settings a link can carry
    state = {
        k: _plain(at.session_state[k])
        for k in sorted(at.session_state.keys())
        if isinstance(k, str)
        and any(fnmatch(k, pattern) for pattern in known)
        and not k.endswith((".en", ".zh", ".from_link"))  # how a choice's label was read
    }
    return {
        # the headings' texts, whatever their level (issue 49 made sections h2, not h3)
        "headings": sorted(h.value for h in (*at.title, *at.header, *at.subheader)),
        "widgets": state,
        "link": {k: _plain(v) for k, v in sorted(query(at).items())},
    }


def _id(entry: tuple[str, str, str]) -> str:
    return f"{Path(entry[0]).stem}?{entry[1]}[{entry[2]}]"


@pytest.mark.parametrize("entry", TODAY, ids=[_id(e) for e in TODAY])
def test_a_link_of_today_opens_the_same_view(entry: tuple[str, str, str]) -> None:
    recorded = json.loads(SNAPSHOT.read_text(encoding="utf-8"))[_id(entry)]
    assert view_of(*entry) == recorded


def test_every_link_of_today_has_its_record() -> None:
    assert set(json.loads(SNAPSHOT.read_text(encoding="utf-8"))) == {_id(e) for e in TODAY}


if __name__ == "__main__":  # python -m tests.app.test_links_today --record
    if sys.argv[1:] != ["--record"]:
        raise SystemExit(__doc__)
    from hograd_labs.derivatives import cached
    from tests.app import conftest  # noqa: F401  (the router's pages mode, as under pytest)

    cached.WAIT = 60.0  # as conftest's fixture: the background columns whole

    records = {_id(e): view_of(*e) for e in TODAY}
    SNAPSHOT.write_text(json.dumps(records, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(records)} views recorded in {SNAPSHOT}")
