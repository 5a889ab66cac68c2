"""hograd: the Higher-Order Gradient Lab. Router only: settings, language, navigation."""

import streamlit as st

import hograd_serving
from hograd_labs.classroom import follow as classroom
from hograd_labs.lesson import STEP_COUNT as LESSON_STEPS
from hograd_serving.floor import script_slot
from hograd_ui.i18n import LANGUAGES
from hograd_ui.parts import a11y
from hograd_ui.parts.lesson_state import carry as lesson_progress
from hograd_ui.parts.links import (
    checked_link,
    leave_button,
    present,
    present_toggle,
    presentation_css,
    remember_link,
    wrap_css,
    write_present,
)
from hograd_ui.parts.ui import lang_from_query, routed, session_id, t
from pages import SITE


def _chosen_language() -> None:
    st.session_state["app.lang"] = st.session_state["lang"]


hograd_serving.start()  # once per process: server fixes, one torch thread

with script_slot(), routed():
    st.set_page_config(page_title="hograd", page_icon="assets/icon.png", layout="wide")
    remember_link()  # the link as opened, before anything below writes to the URL
    session_id()  # a random name for this session: the server serves sessions in turn

    # The language is kept under a key of its own (as presentation mode is, see
    # hograd_ui/parts/present.py): Streamlit drops a widget's value on a page switch, and the
    # radio's alone sent every page after the first back to English.
    if "app.lang" not in st.session_state:
        st.session_state["app.lang"] = lang_from_query()
    st.session_state["lang"] = st.session_state["app.lang"]
    with st.sidebar:
        st.radio(
            t("app.language"),
            list(LANGUAGES),
            key="lang",
            format_func=LANGUAGES.__getitem__,
            horizontal=True,
            on_change=_chosen_language,
        )
        present_toggle(t("links.present"), t("links.present.help"))  # ?present=1 seeds it
    st.query_params["lang"] = st.session_state["lang"]
    write_present()
    lesson_progress(LESSON_STEPS)  # the lesson's progress, from and into every page's link
    st.html(wrap_css())  # our constant CSS, no user text
    if present():
        st.html(presentation_css())  # our constant CSS, no user text
        from hograd_ui.parts.screen_fit import fit_to_screen  # projected pages only

        fit_to_screen()  # a drawing or a table taller than the room is drawn smaller

    # url_path equals the file name: a deep link first seen by a fresh server resolves to the
    # same page in both of Streamlit's routing modes (see hograd_ui/parts/ui.py).
    PAGES = [
        st.Page("pages/home.py", title=t("app.page.home"), icon=":material/school:", default=True),
        st.Page(
            "pages/derivatives.py",
            title=t("app.page.derivatives"),
            icon=":material/functions:",
            url_path="derivatives",
        ),
        st.Page(
            "pages/graph.py",
            title=t("app.page.graph"),
            icon=":material/account_tree:",
            url_path="graph",
        ),
        st.Page(
            "pages/hvp.py", title=t("app.page.hvp"), icon=":material/3d_rotation:", url_path="hvp"
        ),
        st.Page(
            "pages/why.py", title=t("app.page.why"), icon=":material/lightbulb:", url_path="why"
        ),
        st.Page(
            "pages/backward.py",
            title=t("backward.page"),
            icon=":material/edit_note:",
            url_path="backward",
        ),
        st.Page(
            "pages/memory.py",
            title=t("memory.page"),
            icon=":material/memory:",
            url_path="memory",
        ),
        st.Page("pages/code.py", title=t("code.page"), icon=":material/code:", url_path="code"),
        # lesson
        st.Page(
            "pages/lesson.py", title=t("lesson.page"), icon=":material/route:", url_path="lesson"
        ),
    ]
    # presentation mode hides the sidebar: the page switcher moves to the top, and the control
    # that leaves the mode comes first (the mode stays on from page to page until then)
    page = st.navigation(PAGES, position="top" if present() else "sidebar")
    pages = {p.url_path: p for p in PAGES}
    classroom.open_asked(pages)  # a shared view a follower's fragment asked for
    a11y.declare(st.session_state["lang"], page.title)  # <html lang>, the title, focus, contrast
    if present():
        leave_button()
    # a class: the lecturer shares this view and pauses the class, a student follows (or not);
    # above the page in presentation mode, which hides the sidebar, so that a lecturer who
    # projects can share; a paused class's notice above the page
    banner = st.container()
    with st.container() if present() else st.sidebar:
        drawn = classroom.sidebar(SITE, page.url_path, pages, LESSON_STEPS, banner)
    if drawn:  # not on the way to the lecturer's view (hograd_labs/classroom/follow.py)
        with checked_link(page.url_path, SITE):  # says which parameters of the link were ignored
            page.run()
