"""Every view a link: the URL conventions, the notes on a bad link, the share box, presentation.

The convention (docs/architecture.md, "Every view is a link"):

- A widget that holds a view's state has a ``key`` namespaced by page ("page.order") and
  ``bind="query-params"``: Streamlit writes its value to the URL under the key, leaves it out
  while it equals the widget's default, seeds the widget from the URL on the first run and
  drops a value the widget would not accept (out of range, not a number, not an option).
- A widget whose value code also sets (a preset, a button, a click on a chart, an exact
  entry) is not bound: Streamlit warns about a widget given a default while its value is set
  through ``st.session_state``. :func:`hograd_ui.parts.link_form.draw_linked` seeds it from
  the link once per session, gives it a default only while the session holds none, and writes
  it back to the URL, left out while it is the default: the same link as a bound widget's.
- A choice shown with translated labels (``localized_choice``, ``lazy_tabs`` in hograd_ui/parts/ui.py)
  is not bound, since Streamlit would write the translated label; it goes into the URL
  under its canonical key with its option name (``?deriv.tab=taylor``) through
  :func:`url_choice` (before the widget) and :func:`write_choice` (after it). A label that
  an earlier link held, in either language, is read as its option's name.
- app.py runs each page inside :func:`checked_link`, which compares the URL the session
  started with against what the page made of it, and says in the page which parameters were
  ignored and why (unknown, repeated, not a valid value), in the student's language.

Nothing from the URL is ever rendered as HTML or markdown: ignored names and values are shown
as code, cut to a few dozen characters.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from fnmatch import fnmatchcase
from urllib.parse import parse_qs, urlencode

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx
from streamlit.runtime.scriptrunner_utils.exceptions import RerunException

from hograd_ui.i18n import LANGUAGES, tr
from hograd_ui.lab import Site
from hograd_ui.parts.link_form import FIELDS, FORM_DRAWN, REFUSED
from hograd_ui.parts.present import (
    PRESENT,
    current_link,
    leave_button,
    present,
    present_toggle,
    presentation_css,
    refresh_share,
    share_box,
    wrap_css,
    write_present,
)

__all__ = [
    "BIND",
    "PRESENT",
    "checked_link",
    "class_link",
    "current_link",
    "forget_view",
    "known",
    "leave_button",
    "link_text",
    "present",
    "present_toggle",
    "read_class_link",
    "presentation_css",
    "refresh_share",
    "remember_link",
    "share_box",
    "url_choice",
    "wrap_css",
    "write_choice",
    "write_present",
]

BIND = "query-params"  # the one value of Streamlit's ``bind=``, named once
#: Parameters every page accepts: the language, presentation mode, Streamlit's own embed
#: options (``?embed=true`` hides Streamlit's frame for slides that embed the app), and the
#: lesson's progress and teacher's key, which hograd_ui/parts/lesson_state.py reads.
#: The lesson's progress (``?step=3&done=1,2``, hograd_ui/parts/lesson_state.py) is in every
#: page's link, so that a fresh session on any page (a reconnect to another replica, a
#: restart) still has it. ``key`` (and the old ``teacher``) are read once and taken out of the
#: link; the lesson page says when they did not open the teacher's version, without showing
#: what was typed. ``class`` is the class a student joins (hograd_labs/classroom), ``seat``
#: their place in it, ``follow`` whether they follow the lecturer, ``board`` the class whose dashboard the lecturer opens alone (the
#: lesson page, teacher only; never carried into a view shared with the class).
GLOBAL = frozenset(
    {
        "lang",
        PRESENT,
        "embed",
        "embed_options",
        "step",
        "done",
        "class",
        "seat",
        "follow",
        "key",
        "teacher",
        "board",
    }
)
MAX_CLASS_LINK = 2000  # characters of a link shared with a class (the database's column)
MAX_VALUE = 400  # characters of one value in it (a typed function is at most box_chars(...))
#: Why a parameter was not used, and the sentence that says so.
REASONS = {
    "unknown": "links.ignored.unknown",
    "repeated": "links.ignored.repeated",
    "invalid": "links.ignored.invalid",
    "lang": "links.ignored.lang",
}
SHOWN = 40  # characters of an ignored name or value shown back to the student
_ASKED = "links.asked"  # (page, {name: [values]}) of the URL the session started with
_NOTES = "links.notes"  # (page, notes) on that URL, made once, after the page's first run
_QUERY = "links.query"  # {name: [values]} of the URL of the session's first run
_LATER = "links.later"  # (page, {name: [values]}): settings of views not drawn yet
_OLD = "links.old"  # {key: (label, name)}: an earlier link's label read as its option's name


def _lang() -> str:
    return st.session_state.get("lang", "en")


def url_choice(
    key: str, options: list[str], default: str, old: Mapping[str, str] | None = None
) -> None:
    """Seed ``st.session_state[key]`` from ``?key=option`` once per session (before the
    widget is drawn; :func:`write_choice` after it keeps the URL in step).

    ``old`` maps the labels that earlier links held (the translated label, in any language)
    to their option's name: such a link opens the same choice, and :func:`write_choice`
    puts the name in its place. An unknown option in the URL is left to
    :func:`checked_link`, which says it was ignored.
    """
    seeded = f"{key}.from_link"  # namespaced like the key (one seeding per session)
    if seeded not in st.session_state:
        st.session_state[seeded] = True
        asked = st.query_params.get_all(key)
        if asked and asked[-1] in options:
            st.session_state[key] = asked[-1]
        elif asked and old and old.get(asked[-1]) in options:
            st.session_state[key] = old[asked[-1]]
            st.session_state.setdefault(_OLD, {})[key] = (asked[-1], old[asked[-1]])
    st.session_state.setdefault(key, default)


def link_text(key: str, text: str, max_chars: int) -> str:
    """What a bound text box of ``max_chars`` was given, when that was longer than it holds.

    Streamlit cuts a longer value of a bound box (a link's ``?key=``) to ``max_chars`` and
    would open the view on the cut text: a different function or point. When the box holds
    the link's text cut short, this returns the link's whole text, so that the core refuses
    it with the message a typed text that long gets (which names its length); otherwise
    ``text``. Only the link the session was opened with can be longer than the box.
    """
    if len(text) != max_chars:
        return text
    asked = st.session_state.get(_QUERY, {}).get(key, [])
    long = [value for value in asked if len(value) > max_chars and value[:max_chars] == text]
    return long[-1] if long else text


def write_choice(key: str, default: str) -> None:
    """Put ``st.session_state[key]`` into the URL, or take it out when it is the default."""
    value = st.session_state.get(key, default)
    if value == default:
        if key in st.query_params:
            del st.query_params[key]
            refresh_share()
    elif st.query_params.get(key) != value:
        st.query_params[key] = value
        refresh_share()  # the share box names the open tab before the tab computes


def _same(raw: list[str], value: object) -> bool:
    """Whether the URL's text ``raw`` says ``value`` (what the widget ended up holding)."""
    if isinstance(value, tuple | list):
        return len(raw) == len(value) and all(
            _same([r], v) for r, v in zip(raw, value, strict=True)
        )
    text = raw[-1] if raw else ""
    if isinstance(value, bool):
        return text.lower() == str(value).lower()
    if isinstance(value, int | float):
        try:
            number = float(text)
        except ValueError:
            return False
        return math.isfinite(number) and math.isclose(number, float(value), rel_tol=1e-9)
    return text == str(value)


def _short(text: str) -> str:
    return text if len(text) <= SHOWN else text[:SHOWN] + "…"


def known(site: Site, page: str, name: str) -> bool:
    """Whether ``name`` is a setting of one of ``page``'s views (drawn now or not): a form's
    field under one of the page's prefixes, or a URL key its labs declare (hograd_ui/lab.py)."""
    if name not in FIELDS:  # its form may be in a view not imported yet: import it
        site.load_views(page, name)
    if name in FIELDS:
        return name.startswith(site.prefixes(page)) if site.prefixes(page) else False
    return site.known(page, name)


def _judged(name: str, values: list[str], kept: Mapping[str, list[str]]) -> tuple | None:
    """The note on a drawn widget's parameter, or None: ``invalid`` when the widget dropped
    or corrected the value (``kept`` is the URL after the run; a value equal to the default
    is dropped too, which :func:`_same` recognises), ``repeated`` when a single value came
    more than once (the last one counts)."""
    value = st.session_state[name]
    label, option = st.session_state.get(_OLD, {}).get(name, (None, None))
    values = [option if v == label else v for v in values]  # an earlier link's label: taken
    if kept.get(name) != values and not _same(values, value):
        return ("invalid", name, _short(" ".join(values)))  # kept short: a link may be long
    if len(values) > 1 and not isinstance(value, tuple | list) and _same(values[-1:], value):
        return ("repeated", name, values[-1])
    return None


def _notes(
    site: Site, page: str, asked: Mapping[str, list[str]], kept: Mapping[str, list[str]]
) -> tuple[list[tuple[str, str, str]], dict[str, list[str]]]:
    """(reason, name, value) for every parameter of the asked URL that the view does not
    show, and the parameters left for later.

    Reasons: ``unknown`` (no view of the page has it), ``repeated``, ``invalid`` (see
    :func:`_judged`), ``lang``. A parameter of a view this run did not draw (the other mode,
    a closed tab) is judged now when it belongs to a form, whose fields say what they accept
    (a refused value is dropped from the URL); any other is left untouched in the URL and
    judged on the run that first draws its widget (:func:`_judge_later`), since the view
    decides what it accepts (the variables of a typed function, a case's variants...).
    """
    notes, later = [], {}
    for name, values in asked.items():
        shown = values[-1] if values else ""
        if name == "lang":
            if shown not in LANGUAGES:
                notes.append(("lang", name, shown))
        elif name in GLOBAL or name in site.params(page):
            continue
        elif not known(site, page, name):
            notes.append(("unknown", name, shown))
        elif name in st.session_state:
            notes.append(_judged(name, values, kept))
        elif name in FIELDS:  # a form of a view not drawn: its field judges the value now
            if FIELDS[name].read(values) is REFUSED:
                notes.append(("invalid", name, " ".join(values)))
                if name in st.query_params:
                    del st.query_params[name]
            elif len(values) > 1:
                notes.append(("repeated", name, shown))
        else:
            later[name] = values
    return [n for n in notes if n is not None], later


def _judge_later(page: str) -> None:
    """Judge the link's parameters of views drawn since (a tab opened, a mode chosen)."""
    where, later = st.session_state.get(_LATER, ("", {}))
    if where != page or not later:
        return
    kept = _url()
    drawn = [name for name in later if name in st.session_state]
    notes = [_judged(name, later.pop(name), kept) for name in drawn]
    notes_page, old = st.session_state.get(_NOTES, (page, []))
    st.session_state[_NOTES] = (page, [*old, *(n for n in notes if n is not None)])


def remember_link() -> None:
    """Keep the query string the session was opened with; app.py calls this first, before
    anything writes to the URL (writing ``st.query_params`` changes the run's query string)."""
    if _QUERY not in st.session_state:
        ctx = get_script_run_ctx()
        query = ctx.query_string if ctx is not None else ""
        st.session_state[_QUERY] = parse_qs(query, keep_blank_values=True)


@contextmanager
def checked_link(page: str, site: Site) -> Iterator[None]:
    """Run a page and tell the student what in the link it was opened with was ignored.

    The URL the session starts with is remembered; after the first run that reaches the end
    of the page (or its ``st.stop()``), every parameter the page did not take up is listed
    once in a note above the page, which stays until the student leaves the page. ``page``
    is the page's URL path ("" for home); ``site`` says what its views' settings are.
    """
    slot = st.container()
    with st.sidebar.container():  # before the page: there while a view computes for long
        share_box(page)
    if _ASKED not in st.session_state:
        st.session_state[_ASKED] = (page, st.session_state.get(_QUERY, {}))
    rerun = False
    try:
        yield
    except RerunException:
        rerun = True  # the run is replaced by another: it judged nothing yet
        raise
    finally:
        asked_page, asked = st.session_state[_ASKED]
        if not rerun and _NOTES not in st.session_state and asked_page == page:
            notes, later = _notes(site, page, asked, _url())
            st.session_state[_NOTES], st.session_state[_LATER] = (page, notes), (page, later)
            for reason, name, _ in notes:
                if reason == "unknown" and name in st.query_params:
                    del st.query_params[name]  # so that a shared link is clean again
        elif not rerun:
            _judge_later(page)
        notes_page, notes = st.session_state.get(_NOTES, ("", []))
        # After st.stop() the first element raises again and nothing below shows: the page
        # stopped on its own message (a function that fails to parse), and the notes show on
        # the next run.
        if not rerun and notes and notes_page == page:
            _show_notes(slot, notes)
        if not rerun:  # the link with all the page's changes, and whether a form joins it
            refresh_share(forms=bool(st.session_state.pop(FORM_DRAWN, False)))


def _url() -> dict[str, list[str]]:
    return {name: st.query_params.get_all(name) for name in st.query_params}


def _show_notes(slot: object, notes: list[tuple[str, str, str]]) -> None:
    lang = _lang()
    with slot, st.container(border=True):  # type: ignore[attr-defined]
        st.warning(tr("links.ignored.title", lang), icon=":material/link_off:")
        for reason, name, value in notes[:8]:
            st.caption(tr(REASONS[reason], lang))
            st.code(f"{_short(name)}={_short(value)}", language=None, wrap_lines=True)
        if len(notes) > 8:
            st.caption(tr("links.ignored.more", lang, count=len(notes) - 8))


# ---- a view shared with a class (hograd_labs/classroom) --------------------------------------


def _class_param(site: Site, page: str, name: str) -> bool:
    """A parameter a shared view carries: a name in ``page``'s namespace (its key prefixes, as
    every view setting's; the page itself judges the value, as for any link), or one its labs
    declare carried (the lesson's open step). Never the language, presentation mode, the
    class, the progress or the teacher's key: those stay each student's own."""
    if name in site.carried(page):
        return True
    prefixes = site.prefixes(page)
    return (
        bool(prefixes)
        and name.startswith(prefixes)
        and len(name) <= SHOWN
        and all(ch.isascii() and (ch.isalnum() or ch in "._-") for ch in name)
    )


def class_link(site: Site, page: str, query: Mapping[str, list[str]]) -> str | None:
    """The view ``page`` with ``query`` as a link to share with a class ("hvp?hvp.fn=x"), with
    only its views' settings (:func:`_class_param`); None when it does not fit the rules of
    :func:`read_class_link`."""
    pairs = [
        (name, v)
        for name, values in query.items()
        if _class_param(site, page, name)
        for v in values
    ]
    text = f"{page}?{urlencode(pairs)}" if pairs else page
    return text if read_class_link(site, text) is not None else None


def read_class_link(site: Site, text: object) -> tuple[str, dict[str, list[str]]] | None:
    """A stored class link read again: (page, {name: [values]}), or None when it is not one
    this app writes: another page, a parameter that is not a view's setting (the teacher's
    key, the class, the language...), a value too long, the whole too long."""
    if not isinstance(text, str) or len(text) > MAX_CLASS_LINK:
        return None
    page, _, query = text.partition("?")
    if page not in site.pages:
        return None
    try:
        asked = parse_qs(
            query, keep_blank_values=True, strict_parsing=bool(query), max_num_fields=200
        )
    except ValueError:
        return None
    for name, values in asked.items():
        if not _class_param(site, page, name) or any(len(v) > MAX_VALUE for v in values):
            return None
        if name == "step" and not (
            len(values) == 1 and values[0].isdigit() and len(values[0]) <= 2
        ):
            return None
    return page, asked


def _view_key(site: Site, page: str, key: str) -> bool:
    """Whether the session key ``key`` holds a setting of one of ``page``'s views: a bound
    widget, a choice (with its per-language widget and its one seeding from the link), a
    form's field, or what the page derived from one ("page.kappa.used")."""
    patterns = [*site.url(page), *(n for n in FIELDS if known(site, page, n))]
    return any(fnmatchcase(key, p) or fnmatchcase(key, p + ".*") for p in patterns)


def forget_view(site: Site, page: str) -> None:
    """Forget the session's settings of ``page``'s views, so that the next run of the page
    takes every setting from its link (a bound widget seeds only when it is new, a choice
    once a session), and a setting the link leaves out is the default."""
    for key in [k for k in st.session_state if _view_key(site, page, k)]:
        del st.session_state[key]
