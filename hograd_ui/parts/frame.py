"""One frame draws a lab's view for a laptop, a projector and a phone; the page never asks
which.

A view is its lead (what it is about), its controls (the widgets that change it) and its
screens: an ordered ``{name: (label, draw)}``, each ``draw()`` drawing one result (a chart, a
graph, the numbers the lecturer talks about). The frame draws them

- on a laptop: the lead, the controls, then every screen one below the other, each under its
  label as a header;
- projected (presentation mode): the lead and the controls folded into one row of buttons
  (hograd_ui/parts/ui.py's ``present_row``/``folded``), one screen at a time with Previous/Next
  (PageUp/PageDown) and the open screen in the link, ``?<key>=<name>`` (``slides``); no
  headers, the row's list names the screen;
- on a phone (a window at most :data:`PHONE_PX` wide): the screens first, then the switch
  between the view's parts, the controls folded in an expander, then the lead; titles and
  rows of tabs take less room. The document is the laptop's, in the laptop's
  order; only the frame's CSS (:data:`FRAME_CSS`) reorders it at narrow widths, and
  ``frame.js`` folds the controls' expander there. The server cannot know the width of the
  window before it draws (Streamlit sends no viewport), and a page that asked would draw
  twice.

A view may let the reader pick which screen comes first off the projector (``screens``'
``first``: a switch above them, its choice the open slide projected and ``?<key>=`` in the
link), so that a link to one screen opens it on a phone's first screen too.

Each screen sits in a container keyed ``<key>.screen.<name>`` (``st-key-<key>-screen-<name>``
in the document), which the browser tests find it by.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import TypeVar

import streamlit as st

from hograd_ui.parts.links import present
from hograd_ui.parts.ui import lazy_tabs, localized_choice, present_row, slides, t

__all__ = ["FRAME_CSS", "PHONE_PX", "Frame", "Held", "Screens", "aside"]

#: A screen's translated label and the function that draws it.
Screens = Mapping[str, tuple[str, Callable[[], None]]]
#: Controls held by one screen and read by others: their button's translated label and icon
#: (projected), and the function that draws them.
Held = Mapping[str, tuple[str, str, Callable[[], None]]]

T = TypeVar("T")

#: px: the widest window drawn as a phone (result first). Phones are 320-430 CSS px wide in
#: portrait; a tablet in portrait (768) keeps the laptop's order, as Streamlit's own columns
#: stack below 640 px.
PHONE_PX = 640

#: An aside (:func:`aside`), or the wrapper Streamlit puts around it.
_ASIDE = '[class*="st-key-frame-aside-"], :has(> [class*="st-key-frame-aside-"])'

# The frame's container holds its parts in the document's order: lead, controls, screens.
# A Streamlit container is a flex column, each child wrapped in an element or layout
# container; `order` on those wrappers reorders what is shown without touching the document
# (a screen reader and the keyboard follow the document: lead, controls, result).
# Wider than a phone, the controls' expander is drawn open and flat, without its header: the
# laptop's page, controls in place.
FRAME_CSS = f"""
<style>
@media (max-width: {PHONE_PX}px) {{
  [class*="st-key-frame-"] > :has(> [class*="st-key-frame-screens-"]),
  [class*="st-key-frame-"] > [class*="st-key-frame-screens-"] {{ order: 1; }}
  [class*="st-key-frame-"] > :has(> [class*="st-key-frame-top-"]) {{ order: 2; }}
  [class*="st-key-frame-"] > :has(> [class*="st-key-frame-controls-"]),
  [class*="st-key-frame-"] > [class*="st-key-frame-controls-"] {{ order: 3; }}
  [class*="st-key-frame-"] > :has(> [class*="st-key-frame-lead-"]),
  [class*="st-key-frame-"] > [class*="st-key-frame-lead-"] {{ order: 4; }}
  {_ASIDE} {{ order: 1; }}
  [data-testid="stMain"] h1 {{ font-size: 2rem; padding-top: 0.5rem; }}
  [data-testid="stMain"] h2 {{ font-size: 1.5rem; }}
  [data-testid="stTabs"] [role="tablist"] {{ row-gap: 0; column-gap: 0.75rem; }}
  [data-testid="stTabs"] [role="tab"] {{ height: 2rem; }}
}}
@media (min-width: {PHONE_PX + 1}px) {{
  [class*="st-key-frame-controls-"] [data-testid="stExpander"] details {{ border: none; }}
  [class*="st-key-frame-controls-"] [data-testid="stExpander"] summary {{ display: none; }}
  [class*="st-key-frame-controls-"] [data-testid="stExpanderDetails"] {{
    padding: 0; border-top: none; }}
}}
</style>
"""

_JS = "\n".join(
    line.strip()
    for line in (Path(__file__).resolve().parent / "frame.js").read_text("utf-8").splitlines()
    if line.strip() and not line.strip().startswith("//")
)
_COMPONENT = st.components.v2.component("hograd_frame", js=_JS, isolate_styles=False)


class Frame:
    """One view of a lab, drawn for whatever shows it (see the module's docstring).

    Use it top to bottom, as a page reads::

        view = Frame("memory")
        with view.lead():
            st.markdown(t("memory.lead"))
        with view.controls():
            config = settings()
        view.screens({"orders": (t("memory.orders.title"), lambda: orders(run))}, "memory.screen")

    ``name`` is unique among the frames a page draws (it keys their containers).
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.projected = present()
        self.row = present_row(name)  # projected, the row of buttons; else an empty container
        box = st.container(key=f"frame.{name}")
        if not self.projected:  # projected, hograd_ui/parts/present.py's CSS places asides
            box.html(FRAME_CSS)  # our constant CSS, no user text
        # the parts in the document's order, filled as the page reaches them; on a phone the
        # result first, then the switch between the view's parts, the controls, the lead
        self._lead = box.container(key=f"frame.lead.{name}")
        self._top = box.container(key=f"frame.top.{name}")
        self._controls = box.container(key=f"frame.controls.{name}")
        self.results = box.container(key=f"frame.screens.{name}")
        """Where the screens are drawn: what all of them share (a caption) goes in here too."""
        self._pops: dict[str, object] = {}
        self._fold: object | None = None
        self._leads = 0  # the screens' own leads drawn so far (each an aside)
        if not self.projected:
            with st.sidebar:  # draws nothing: folds the controls on a phone
                _COMPONENT(key=f"frame.fold.{name}", data={"phone": PHONE_PX})

    def _folded(self, kind: str, label: str, icon: str) -> object:
        """The row's popover ``kind`` (projected), made once: a view that fills its lead or
        its controls in two places has one button for each."""
        if kind not in self._pops:
            self._pops[kind] = self.row.popover(label, icon=icon)
        return self._pops[kind]

    @contextmanager
    def lead(self, here: bool = False) -> Iterator[None]:
        """What the view is about: in place on a laptop, in the row's Explanation projected,
        under the result on a phone. May be entered again (one Explanation). ``here``: the
        lead of one screen, drawn where the page is drawing: on a laptop over that screen's
        result, under its heading; on a phone under the result (an :func:`aside`);
        projected, in the Explanation all the same."""
        if self.projected:
            with self._folded("lead", t("present.text"), ":material/notes:"):
                yield
            return
        if here:
            self._leads += 1
            with aside(f"{self.name}.lead.{self._leads}"):
                yield
            return
        with self._lead:
            yield

    def setting(self, value: T, slides: T) -> T:
        """What a setting starts at, or which of two keys holds it: ``value`` on a laptop and
        a phone, ``slides`` projected (a drawing laid out to fit a slide: left to right,
        tight). The page declares both, as a chart declares its projected layout
        (hograd_ui/plotting.py); the frame picks."""
        return slides if self.projected else value

    @contextmanager
    def controls(self, fold: bool = True) -> Iterator[None]:
        """The widgets that change the view: in place on a laptop, folded into the row's
        Settings projected, folded in an expander under the result on a phone. ``fold``
        False: in place projected too (the function box a lecturer types into). May be
        entered again (one Settings, one expander)."""
        if self.projected:
            where = self._folded("controls", t("present.controls"), ":material/tune:")
            with where if fold else self._controls:
                yield
            return
        if self._fold is None:
            with self._controls:
                self._fold = st.expander(
                    t("present.controls"), expanded=True, icon=":material/tune:"
                )
        with self._fold:
            yield

    def part(
        self,
        label: str,
        parts: dict[str, str],
        key: str,
        short: dict[str, str] | None = None,
        where: object | None = None,
        **kwargs: object,
    ) -> str:
        """Which of the view's parts to show (``parts``: name -> translated label; the choice
        in the session and the link under ``key``): a horizontal radio in place (above the
        controls, or in ``where``: a choice of how one screen draws, over that screen);
        projected, in the row, a list (one line with long names) or, with ``short`` labels,
        buttons. ``kwargs`` go to hograd_ui/parts/ui.py's ``localized_choice``
        (``on_change``, ...). Returns the chosen name."""
        if not self.projected:
            place = self._top if where is None else where
            return localized_choice(label, parts, key, container=place, horizontal=True, **kwargs)
        if short is not None:
            return localized_choice(
                label,
                short,
                key,
                widget="segmented_control",
                container=self.row,
                label_visibility="collapsed",
                **kwargs,
            )
        return localized_choice(
            label,
            parts,
            key,
            widget="selectbox",
            container=self.row,
            label_visibility="collapsed",
            width=420,
            **kwargs,
        )

    def buttons(self) -> object:
        """Where buttons one click away in every mode go (a view's presets): the row
        projected; else a row of its own above the controls (under the result on a phone).
        Use it as ``with view.buttons():``."""
        if self.projected:
            return self.row
        return self._top.container(horizontal=True)

    def clicker(self, key: str) -> str | None:
        """The presenter's clicker key ``key`` (``"PageUp"``, ``"PageDown"``) for a button
        that turns the view (a button's ``shortcut=``): bound projected, where the view is one
        screen, as the slides' own Previous/Next are; None elsewhere, where the key scrolls."""
        return key if self.projected else None

    def screens(
        self,
        screens: Screens,
        key: str,
        box: str | None = None,
        *,
        headers: bool | Collection[str] | Mapping[str, str] = True,
        bold: bool = False,
        tabs: tuple[str, str] | None = None,
        held: Held | None = None,
        side: Mapping[str, float] | None = None,
        first: tuple[str, Mapping[str, str]] | None = None,
    ) -> None:
        """Draw the view's screens: stacked, or the open one projected.

        Args:
            screens: name -> (translated label, draw), in order.
            key: the open screen's session key and link parameter, ``?<key>=<name>``
                (presentation mode only).
            box: the prefix of each screen's container key, ``<box>.<name>``; ``key`` if None.
            headers: each stacked screen under its label as a header (True), none (False),
                or only the screens named (a view whose other parts were never sections);
                a mapping names each headed screen's heading, when it is not its label.
            bold: the labels in bold text instead, not headings (a view whose screens are
                not sections of the page's outline).
            tabs: ``(tabs' key, first name)``: off the projector, the screens from that name
                on are tabs (only the open one computes: hograd_ui/parts/ui.py's lazy_tabs),
                the open tab in the link under the tabs' key.
            held: name -> (label, icon, draw): the controls of that screen that other
                screens read too (a run's settings, whose drawings are a screen of their
                own). Drawn at the top of that screen, under its heading; projected, in a
                button of their own in the row, on every slide (a widget that a run does
                not draw forgets its value).
            side: screen name -> relative width: off the projector those screens share one
                row of columns, in order, from where the first of them is drawn (a phone
                stacks the columns); projected each is a screen as any other.
            first: ``(label, {name: short label})``: off the projector, a switch at the top
                of the screens that picks the screen drawn first, the others after it in
                order (on a phone the chosen result is then on the first screen); it names
                that screen, which has no heading of its own then. Its choice is the open
                screen projected, ``?<key>=<name>`` in the link either way.
        """
        held = held or {}
        if self.projected:
            for name, (label, icon, draw) in held.items():
                with self._folded(f"held.{name}", label, icon):
                    draw()
        labels = {name: label for name, (label, _) in screens.items()}
        one = len(screens) == 1  # one screen: no list to turn, no header over it
        shown = dict.fromkeys(labels, True) if one else slides(labels, key, self.row)
        names = list(screens)
        named = None  # the screen the switch names
        if first is not None and not (self.projected or one):
            named = localized_choice(
                first[0], dict(first[1]), key, container=self.results, horizontal=True
            )
            names = [named, *(name for name in names if name != named)]
        tabbed = names[names.index(tabs[1]) :] if tabs and not self.projected else []
        column: dict[str, object] = {}  # side by side: name -> its column
        with self.results:
            for name in names:
                if shown[name] and name not in tabbed:
                    if side and name in side and not column and not self.projected:
                        beside = [n for n in names if n in side and n not in tabbed]
                        widths = [side[n] for n in beside]
                        column = dict(zip(beside, st.columns(widths, gap="medium"), strict=True))
                    place = column.get(name, nullcontext())
                    with place, st.container(key=f"{box or key}.{name}"):
                        headed = name != named and (
                            headers is True or (headers and name in headers)
                        )
                        if headed and not (self.projected or one):  # projected, the list names it
                            heading = (
                                headers[name] if isinstance(headers, Mapping) else labels[name]
                            )
                            if bold:  # our translated label, no user text
                                st.markdown(f"**{heading}**")
                            else:
                                st.header(heading)
                        if name in held and not self.projected:
                            held[name][2]()
                        screens[name][1]()
            if tabbed:
                opened = lazy_tabs({name: labels[name] for name in tabbed}, tabs[0])
                for name in tabbed:
                    if opened[name].open:
                        with opened[name]:
                            screens[name][1]()


@contextmanager
def aside(name: str) -> Iterator[None]:
    """Text about a result, drawn just before it: above it on a laptop, under it projected
    (hograd_ui/parts/present.py's CSS orders it, on any page) and on a phone in a frame's
    page (:data:`FRAME_CSS`); the document keeps the laptop's order. ``name`` is unique in
    the page."""
    with st.container(key=f"frame.aside.{name}"):
        yield
