"""Follow the lecturer: the lecturer shares the view on their screen with the class;
a student who switched "follow" on is taken to it within :data:`FOLLOW_EVERY` seconds, in the
same session (their nickname, progress and language stay theirs). Off, nothing moves.

Pause ("eyes on the projector"): the lecturer pauses the class in one click beside the share
button; a following student's page then shows the view shared last and nothing else (no
sidebar, no page switcher, no control that answers a click) until the lecturer resumes, or
only a notice when nothing was shared yet. The pause is the class's, in the class database
(``compute.set_paused``), so it reaches followers on every replica with their next look.

What is stored is the view's page and its views' settings only (hograd_ui/parts/links.py's
``class_link``: never the teacher's key, the class, the language or the progress), and a stored
link is read again with the same rules (``read_class_link``) before a student's page opens it.
app.py draws :func:`sidebar` on every page. The class's database (:mod:`.compute`, with
SQLAlchemy) is imported by the functions that use it: a page opened by someone in no class
never loads it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

import streamlit as st

from hograd_ui.i18n import error_text
from hograd_ui.lab import Site
from hograd_ui.parts import lesson_state as state
from hograd_ui.parts.links import PRESENT, class_link, forget_view, read_class_link
from hograd_ui.parts.ui import lang, t

__all__ = [
    "FOLLOW",
    "FOLLOWING",
    "FOLLOW_PARAM",
    "FOLLOW_EVERY",
    "PAUSED",
    "PAUSE_CSS",
    "SHARED",
    "open_asked",
    "pause_button",
    "sidebar",
]

#: seconds between a following student's looks for a newly shared view: with cached.LOOK_AGE
#: and the switch, a follower moves within two seconds of the share (docs/performance.md)
FOLLOW_EVERY = 1.0
FOLLOW = "classroom.follow"  # the student's toggle
#: whether the student follows: kept apart from the toggle's own state, which a switch of
#: page by st.switch_page (no widget states from the browser) would reset
FOLLOWING = "classroom.following"
#: ``?follow=1``: the student follows. A fresh session of the same address (the page loaded
#: again, by hand or by hograd_serving/recover.js after Streamlit's front end broke) follows
#: again; no link the app shows or shares carries it (hograd_ui/parts/present.py: PRIVATE).
FOLLOW_PARAM = "follow"
SEEN = "classroom.follow.seen"  # the serial of the last shared view this session opened
PENDING = "classroom.follow.pending"  # (page, params): the view to open after the hop home
#: (page, query): the page the next full run opens (:func:`open_asked`). A fragment never
#: switches the page itself: a follower's page switched from inside its follow fragment went
#: blank now and then on a phone ("Bad delta path index 15 (should be between [0, 2])" in
#: Streamlit's front end, the new page's tree under the old fragment's updates), found by the
#: rehearsed lecture; a fragment asks for a whole-app run instead, which switches.
SWITCH = "classroom.follow.switch"
HOME = ""  # the home page's URL path
SHARED = "classroom.shared"  # the lecturer's last share: (serial, page) or a refusal's text
CODE = "classroom.code"  # the class the lecturer opened (page.py's CODE)
STUDENT_CODE = state.CLASS
#: whether the class was paused when this follower's page last ran (its follow fragment
#: runs the whole page again when the class's pause changes)
PAUSED = "classroom.follow.paused"
#: A paused follower's page: the sidebar, the header (menu, page switcher) hidden; of a view
#: the frame draws (hograd_ui/parts/frame.py), its settings, its switch between parts and its
#: projected row of buttons hidden too, and the class bar (its "Leave the class") and the
#: charts' tool bars, so the shared view is what is left; and the page's own elements
#: answering no pointer (it still scrolls). Our constant CSS, no user text.
PAUSE_CSS = (
    "<style>[data-testid='stSidebar'], [data-testid='stSidebarCollapsedControl'],"
    " [data-testid='stExpandSidebarButton'], [data-testid='stHeader'],"
    " [class*='st-key-frame-controls-'], [class*='st-key-frame-top-'],"
    " [class*='st-key-present-row-'], .st-key-classroom-bar, .st-key-classroom-seat,"
    " [data-testid='stMainBlockContainer'] .modebar-container"
    " { display: none !important; }"
    " [data-testid='stMainBlockContainer'] { pointer-events: none; user-select: none; }"
    "</style>"
)


def _share(site: Site, page: str) -> None:
    query = {name: st.query_params.get_all(name) for name in st.query_params}
    link = class_link(site, page, query)
    from . import compute
    from .cached import call

    try:
        if link is None:
            raise compute.ClassroomError("classroom.error.link", most=compute.MAX_LINK)
        serial = call(compute.share, st.session_state[CODE], link, time.time())
    except compute.ClassroomError as err:
        st.session_state[SHARED] = error_text(err, lang())
        return
    st.session_state[SHARED] = (serial, page)


def _pause(code: str, paused: bool) -> None:
    from . import compute
    from .cached import call

    try:
        call(compute.set_paused, code, paused, time.time())
    except compute.ClassroomError as err:
        st.session_state[SHARED] = error_text(err, lang())


def pause_button(code: str, paused: bool, key: str = "classroom.pause") -> None:
    """The lecturer's one click that pauses the class ``code``, or resumes it (``paused``:
    as the database said on this run)."""
    st.button(
        t("classroom.resume" if paused else "classroom.pause"),
        on_click=_pause,
        args=(code, not paused),
        key=key,
        icon=":material/play_arrow:" if paused else ":material/pause:",
        type="primary" if paused else "secondary",
        help=t("classroom.pause.help"),
        width="stretch",
    )


def _lecturer(site: Site, page: str) -> None:
    code = st.session_state[CODE]
    from . import compute
    from .cached import call

    try:
        now = call(compute.live, code, time.time())
    except compute.ClassroomError:
        now = None  # the share or the pause says so when clicked
    paused = now is not None and now.paused
    with st.container(horizontal=True):
        st.button(
            t("classroom.share"),
            on_click=_share,
            args=(site, page),
            key="classroom.share",
            icon=":material/cast_for_education:",
            help=t("classroom.share.help"),
            width="stretch",
        )
        pause_button(code, paused)
    if paused:
        st.caption(t("classroom.paused.teacher"))
    done = st.session_state.get(SHARED)
    if isinstance(done, tuple):
        st.caption(t("classroom.shared", n=done[0]))
    elif done:
        st.warning(done, icon=":material/link_off:")


def _switch(page: str, query: Mapping[str, list[str]]) -> None:
    """From a fragment: ask the next whole-app run to open ``page`` with ``query``, and end
    this run for it (``st.rerun``: the whole app, never only the fragment)."""
    st.session_state[SWITCH] = (page, dict(query))
    st.rerun(scope="app")


def open_asked(pages: Mapping[str, object]) -> None:
    """Open the page a fragment asked for (:func:`_switch`), if one did. app.py calls it on
    every run right after ``st.navigation``, before the page draws anything."""
    asked = st.session_state.pop(SWITCH, None)
    if asked is not None and asked[0] in pages:
        st.switch_page(pages[asked[0]], query_params=asked[1])


@st.fragment(run_every=0.3)
def _hop(pages: Mapping[str, object]) -> None:
    """The second switch of :func:`_go`, on a run after the first one ended."""
    ready, page, params = st.session_state.get(PENDING, (False, "", {}))
    if ready:
        del st.session_state[PENDING]
        _switch(page, {**params, **_own()})


def _own() -> dict[str, list[str]]:
    """The parameters that stay the student's: language, class, follow, presentation mode."""
    own = {"lang": [lang()], "class": [st.session_state[STUDENT_CODE]]}
    if st.session_state.get(FOLLOWING):
        own[FOLLOW_PARAM] = ["1"]
    if st.session_state.get("links.present"):
        own[PRESENT] = ["1"]
    return own


def _go(site: Site, link: str, here: str, pages: Mapping[str, object], steps: int) -> None:
    """Open the shared view: forget this session's settings of its page, then switch.

    Streamlit refuses to set a query parameter bound to a widget of the page being shown
    ("hvp.fn" while the student is on the HVP page), and unbinds a widget only when a run ends
    without it. So a view of the page the student is on opens in two switches: first to the
    home page, whose run draws no page and ends (:func:`sidebar`), then, from a fragment's
    rerun after that run ended, to the view."""
    read = read_class_link(site, link)
    if read is None or read[0] not in pages:
        st.warning(t("classroom.follow.bad"), icon=":material/link_off:")
        return
    page, params = read
    if page == "lesson" and "step" in params:
        state.go(int(params.pop("step")[0]), steps)
    forget_view(site, page)
    if page == here and page != HOME:
        st.session_state[PENDING] = (False, page, params)
        _switch(HOME, _own())
    _switch(page, {**params, **_own()})


@st.fragment(run_every=FOLLOW_EVERY)
def _follow(site: Site, code: str, here: str, pages: Mapping[str, object], steps: int) -> None:
    """Every few seconds: a view shared since this session last opened one is opened; the
    class paused or resumed since the page ran: the page runs again (paused: the shared view
    opens afresh, and stays while the pause lasts)."""
    from . import compute
    from .cached import look

    try:
        now = look(compute.live, code)
    except compute.ClassroomError as err:
        st.caption(error_text(err, lang()))
        return
    if now is None:  # deleted, or its days are over: the lesson page says so
        st.caption(t("classroom.error.no_class"))
        return
    if now.paused != st.session_state.get(PAUSED, False):
        st.rerun()
    view = now.shared
    if view is None:
        st.caption(t("classroom.follow.none"))
        return
    st.caption(t("classroom.follow.on"))
    if now.paused and not _showing(site, view.link, here):  # the student left it: opened again
        st.session_state.pop(SEEN, None)
    if st.session_state.get(SEEN) != view.serial:
        st.session_state[SEEN] = view.serial
        if not _showing(site, view.link, here):  # a fresh session on the view itself stays
            _go(site, view.link, here, pages, steps)


def _showing(site: Site, link: str, here: str) -> bool:
    """Whether this page is the shared view ``link``: the same page with the same settings
    of its views (both read by the class link's rules, so the order of the parameters and
    the ones a view does not share do not count)."""
    query = {name: st.query_params.get_all(name) for name in st.query_params}
    mine = class_link(site, here, query)
    return mine is not None and read_class_link(site, mine) == read_class_link(site, link)


def _switched() -> None:
    st.session_state[FOLLOWING] = st.session_state[FOLLOW]
    st.session_state.pop(SEEN, None)  # on again: the view shared last opens at once


def _student(
    site: Site, code: str, here: str, pages: Mapping[str, object], steps: int, banner: object
) -> bool:
    """The follow toggle and, on, the follow fragment; a paused class's notice in ``banner``.
    Whether the page runs: not while paused with nothing shared (the notice is all)."""
    if FOLLOWING not in st.session_state:  # the session's first run: the address says
        st.session_state[FOLLOWING] = st.query_params.get(FOLLOW_PARAM) == "1"
    st.session_state[FOLLOW] = st.session_state[FOLLOWING]
    st.toggle(
        t("classroom.follow"), key=FOLLOW, help=t("classroom.follow.help"), on_change=_switched
    )
    if st.session_state[FOLLOWING]:
        if st.query_params.get_all(FOLLOW_PARAM) != ["1"]:
            st.query_params[FOLLOW_PARAM] = "1"
    elif FOLLOW_PARAM in st.query_params:
        del st.query_params[FOLLOW_PARAM]
    if not st.session_state.get(FOLLOWING):
        st.session_state.pop(PAUSED, None)
        return True
    from . import compute
    from .cached import call

    try:
        now = call(compute.live, code, time.time())
    except compute.ClassroomError:
        now = None  # the fragment says so
    paused = now is not None and now.paused
    st.session_state[PAUSED] = paused
    if paused:
        banner.html(PAUSE_CSS)  # type: ignore[attr-defined]
        notice = "classroom.paused" if now.shared is not None else "classroom.paused.none"
        banner.info(t(notice), icon=":material/visibility:")  # type: ignore[attr-defined]
    _follow(site, code, here, pages, steps)
    return not (paused and now.shared is None)


def sidebar(
    site: Site, page: str, pages: Mapping[str, object], steps: int, banner: object = None
) -> bool:
    """In the sidebar of every page: the lecturer with a class open shares the view and
    pauses the class; a student in a class follows it (or not). Nothing for anyone else.
    ``site``: what each page's views' settings are (a shared view carries them); ``steps``:
    the lesson's number of steps (a shared view of the lesson opens its step, clamped to
    them); ``banner``: a container above the page, for a paused class's notice (the sidebar
    is hidden then).

    Returns:
        Whether app.py runs the page: not on the first run of the two switches of
        :func:`_go`, which must end normally (``st.stop`` would not unbind) and quickly, nor
        for a follower of a paused class before anything was shared.
    """
    pending = st.session_state.get(PENDING)
    if pending is not None:
        _hop(pages)
        if not pending[0]:  # the first run on the way: it ends here, which unbinds
            st.session_state[PENDING] = (True, *pending[1:])
            return False
    if st.session_state.get(state.TEACHER) and st.session_state.get(CODE):
        _lecturer(site, page)
        return True
    asked = st.session_state.get(STUDENT_CODE)
    if not asked:
        return True
    from . import compute

    try:
        code = compute.read_code(asked)
    except compute.ClassroomError:
        return True  # the lesson page says why
    return _student(
        site, code, page, pages, steps, banner if banner is not None else st.container()
    )
