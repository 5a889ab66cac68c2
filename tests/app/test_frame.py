"""One frame draws a lab's view for every place (hograd_ui/parts/frame.py): a page drawn by it
never branches on presentation mode, its controls sit in the frame's container (an expander
off the projector, the row's Settings on it), and its screens keep their keys and links.

The static check reads each converted page module's tokens: a lab that goes back to asking
``present()`` fails here. The AppTests open each converted view off and on the projector.
"""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

import pytest

from tests.app.test_links import open_link

ROOT = Path(__file__).resolve().parents[2]
#: Lab page modules drawn by the frame: none of them names the mode.
CONVERTED = (
    "memory/page.py",
    "stability/page.py",
    "hvp/page.py",
    "curvature/page.py",
    "maml/page.py",
    "pinn/page.py",
    "hf/page.py",
    "stats/page.py",
    "wgan/page.py",
    "code/page.py",
    "graph/page.py",
    "graph/view_one.py",
    "graph/view_several.py",
    "backward/page.py",
    "backward/figures.py",
    "newton/page.py",
    "lesson/page.py",
    "lesson/views.py",
)
MODE = {"present", "projector", "projected"}

#: (page, query, the key of one of its screens' containers, the frame's name); a screen that
#: is a tab off the projector (the HVP network's views) has a container projected only.
VIEWS = [
    ("pages/memory.py", {}, "memory.screen.orders", "memory"),
    ("pages/why.py", {"why.tab": "stability"}, "stability.screen.quadratic", "stability"),
    (
        "pages/why.py",
        {"why.tab": "stability", "why.stability.part": "network"},
        "stability.screen.network",
        "stability",
    ),
    ("pages/hvp.py", {}, "hvp.screen.numbers", "hvp"),
    ("pages/hvp.py", {"hvp.mode": "network"}, "hvp.net.screen.top", "hvp"),
    ("pages/why.py", {"why.tab": "curvature"}, "curvature.screen.typed", "curvature"),
    (
        "pages/why.py",
        {"why.tab": "curvature", "why.curv.part": "momentum"},
        "curvature.screen.momentum",
        "curvature",
    ),
    ("pages/why.py", {"why.tab": "maml"}, "maml.adapt", "maml"),
    ("pages/why.py", {"why.tab": "pinn"}, "pinn.screen.maps", "pinn"),
    ("pages/why.py", {"why.tab": "hf"}, "hf.screen.curves", "hf"),
    ("pages/why.py", {"why.tab": "stats"}, "stats.norms", "stats"),
    ("pages/why.py", {"why.tab": "wgan"}, "wgan.screen.points", "wgan"),
    ("pages/home.py", {}, "home.result", "home"),
    ("pages/code.py", {}, "code.screen.run", "code"),
    ("pages/graph.py", {}, "graph.screen.graph", "graph"),
    ("pages/graph.py", {"graph.fn": "w1**2*sin(w2)"}, "graph.screen.graph", "graph"),
    ("pages/backward.py", {}, "backward.screen.formulas", "backward"),
    ("pages/why.py", {"why.tab": "newton"}, "newton.screen.table", "newton"),
    ("pages/lesson.py", {"step": "2"}, "lesson.view", "lesson"),  # step 2 has settings
]


def _names(path: Path) -> set[str]:
    text = path.read_text("utf-8")
    return {t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == 1}


@pytest.mark.parametrize("module", CONVERTED)
def test_a_page_drawn_by_the_frame_never_names_the_mode(module: str) -> None:
    assert not _names(ROOT / "hograd_labs" / module) & MODE


def test_the_static_check_finds_a_page_that_asks(tmp_path: Path) -> None:
    """The check above reads code, not comments or strings: it sees the mode where a page
    branches, and not in a page that only says the word."""
    asks = tmp_path / "asks.py"
    asks.write_text("if present():\n    st.header('x')\n", "utf-8")
    says = tmp_path / "says.py"
    says.write_text("# projected, the row\nkey = 'graphvars.saved.present'\n", "utf-8")
    assert _names(asks) & MODE
    assert not _names(says) & MODE


def _keys(at) -> set[str]:
    """The keys of every container the run drew (AppTest keeps a block's key as its id)."""
    found, stack = set(), [at.main]
    while stack:
        node = stack.pop()
        key = getattr(getattr(node, "proto", None), "id", "") or ""
        if key:
            found.add(key)
        stack.extend(getattr(node, "children", {}).values())
    return found


@pytest.mark.parametrize(("page", "query", "screen", "name"), VIEWS)
def test_the_frame_draws_each_view_off_and_on_the_projector(
    page: str, query: dict, screen: str, name: str
) -> None:
    laptop = open_link(page, query)
    projected = open_link(page, {**query, "present": "1"})
    if name != "home":  # the home page has no controls
        assert laptop.expander, "off the projector the controls are in the frame's expander"
        assert not projected.expander or all(
            e.label != laptop.expander[0].label for e in projected.expander
        ), "projected, the controls fold into the row, not an expander"
    for at in (laptop, projected):
        keys = " ".join(_keys(at))
        assert f"frame.screens.{name}" in keys, keys[:400]
        assert screen in keys or (at is laptop and ".net." in screen), keys[:400]


def _block(at, key: str):
    """The container keyed ``key`` in the run's tree (AppTest keeps a block's key as its id)."""
    stack = [at.main]
    while stack:
        node = stack.pop()
        if (getattr(getattr(node, "proto", None), "id", "") or "").endswith(key):
            return node
        stack.extend(getattr(node, "children", {}).values())
    raise AssertionError(f"no container {key}")


def test_held_controls_sit_under_their_screen_or_on_every_slide() -> None:
    """The graph lab's flags are held by its flags screen (Frame.screens' ``held``): on a
    laptop inside that screen's container, before the run's output; projected, drawn on a
    slide that is not theirs (the traps), so the toggles keep their value from the link."""
    laptop = open_link("pages/graph.py", {"graph.flag.create_graph": "true"})
    flags = _block(laptop, "graph.screen.flags")
    assert flags.toggle(key="graph.flag.create_graph").value is True
    projected = open_link(
        "pages/graph.py",
        {"present": "1", "graph.screen": "traps", "graph.flag.create_graph": "true"},
    )
    assert projected.toggle(key="graph.flag.create_graph").value is True
    assert "graph.screen.flags" not in " ".join(_keys(projected))
