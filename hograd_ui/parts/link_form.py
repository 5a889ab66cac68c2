"""A form's settings in the link, written when the form is submitted.

A widget bound with ``bind="query-params"`` inside ``st.form`` writes its value into the URL
while the student edits it, before Run is pressed (the browser updates the address on every
change), so a shared link could name settings that were never run. Form widgets are therefore
drawn unbound, through :class:`LinkedForm`:

- before the form, :meth:`LinkedForm.seed` reads each setting from the link with the rules
  Streamlit applies to a bound widget of the same kind (:meth:`Field.read`): a value the
  widget would refuse is dropped from the URL (``checked_link`` then says so), one equal to
  the default is dropped silently, a good one becomes the widget's value;
- after the form, :meth:`LinkedForm.write` puts the values the form returned (what the page
  computes with: the last submitted ones) into the URL, leaving out the defaults. Inside a
  form a widget returns a new value only when the form is submitted, so editing without
  submitting leaves the URL as it is.

A link with a form's settings opens the view computed with them, as if Run had been pressed.
Every form registers its fields (:data:`FIELDS`), so ``checked_link`` can judge a setting of a
form the view did not draw (a closed tab) by the same rules.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import streamlit as st

from hograd_ui.parts.present import refresh_share

__all__ = [
    "FIELDS",
    "FORM_DRAWN",
    "Field",
    "LinkedForm",
    "REFUSED",
    "draw_linked",
    "seed_linked",
    "write_linked",
]

REFUSED = object()  # what Field.read returns for a value the widget would not accept
FORM_DRAWN = "links.form_drawn"  # set by a run that drew a form, taken by checked_link
#: Every form field by its key (its URL name), filled as the forms are defined.
FIELDS: dict[str, Field] = {}


@dataclass(frozen=True)
class Field:
    """One widget of a form: its kind, default and limits, which decide what a link may set.

    ``kind`` is "slider" or "number" (``low``..``high``; whole numbers when ``default`` is an
    int), "select" (a select slider over ``options``), "radio" (``options``), or "toggle" /
    "checkbox" (true or false), or "text" (a text box of at most ``high`` characters; 0: no
    limit). ``label`` shows an option (the link names it as ``str``).
    """

    kind: str
    default: object
    low: float = 0.0
    high: float = 0.0
    step: float | None = None
    options: tuple = ()
    label: Callable[[object], str] | None = field(default=None, compare=False)

    def read(self, raw: list[str]) -> object:
        """The value the URL's ``raw`` values give, or :data:`REFUSED`.

        The rules of Streamlit 1.67 for a bound widget of this kind: a slider or select slider
        takes exactly one value (a repeated one is refused); the other kinds take the last.
        Numbers must parse, be finite and lie within the limits (a whole-number slider cuts a
        fraction off, as Streamlit's does); options are matched by name; flags read
        true/false in any case.
        """
        if self.kind == "text":  # the last value, cut to the box's length as Streamlit does
            if not raw:
                return REFUSED
            return raw[-1][: int(self.high)] if self.high else raw[-1]
        given = [r for r in raw if r != ""]
        if not given:
            return REFUSED
        if self.kind in ("slider", "select") and len(given) != 1:
            return REFUSED
        text = given[-1]
        if self.kind in ("select", "radio"):
            names = [str(o) for o in self.options]
            return self.options[names.index(text)] if text in names else REFUSED
        if self.kind in ("toggle", "checkbox"):
            return {"true": True, "false": False}.get(text.lower(), REFUSED)
        try:
            number = float(text)
        except ValueError:
            return REFUSED
        if not math.isfinite(number) or not self.low <= number <= self.high:
            return REFUSED
        return int(number) if isinstance(self.default, int) else number

    def text(self, value: object) -> str:
        """How ``value`` is written in the URL (:meth:`read` gives it back)."""
        if isinstance(value, bool):
            return str(value).lower()
        if isinstance(value, float) and self.kind != "select" and value == int(value):
            return str(int(value))  # 5.0 is written 5, as Streamlit writes a bound slider
        return str(value)

    def draw(self, where: object, label: str, key: str, **kwargs: object) -> object:
        """Draw the widget (unbound: the form writes the URL) in ``where`` under ``key``.

        Once ``st.session_state`` holds its value (the link's, put there by :meth:`seed`, or an
        earlier run's), the widget gets no default argument: Streamlit logs a warning with a
        stack trace for a widget given a default and a value set through the Session State API.
        """
        kwargs = {"key": key, "persist_state": "page", **kwargs}  # kept while a tab is closed
        if self.label is not None:
            kwargs["format_func"] = self.label
        if key not in st.session_state:  # the first draw, no link: the default
            name = "index" if self.kind == "radio" else "value"
            kwargs[name] = self.options.index(self.default) if name == "index" else self.default
        whole = isinstance(self.default, int)  # Streamlit wants the limits of the same type
        low, high = (int(self.low), int(self.high)) if whole else (self.low, self.high)
        if self.kind == "slider":
            step = int(self.step) if whole and self.step else self.step
            return where.slider(label, low, high, step=step, **kwargs)
        if self.kind == "number":
            return where.number_input(label, low, high, **kwargs)
        if self.kind == "text":  # the box holds at most ``high`` characters, as the link
            return where.text_input(label, max_chars=int(self.high) or None, **kwargs)
        if self.kind == "select":
            return where.select_slider(label, list(self.options), **kwargs)
        if self.kind == "radio":
            value = where.radio(label, list(self.options), **kwargs)
            # st.radio hands back text it does not know as it came (a modified client's)
            return value if value in self.options else self.default
        return getattr(where, self.kind)(label, **kwargs)


def seed_linked(key: str, spec: Field) -> None:
    """Before an unbound widget whose value code also sets (a preset, a button, a click): give
    it the link's value (``?key=``), once per session, read by ``spec`` as :meth:`LinkedForm.seed`
    reads a form's field. Draw it with :meth:`Field.draw` and put its value back into the URL
    with :func:`write_linked`.

    Why not ``bind="query-params"``: a bound widget needs its default (``value=``, which is what
    the URL leaves out) on every run, and Streamlit logs a warning with a stack trace for a
    widget given a default whose value was set through the Session State API in the same run.
    Here the value lives in ``st.session_state`` and the widget gets a default only while the
    session holds none (:meth:`Field.draw`).
    """
    seeded = f"{key}.from_link"  # namespaced like the key, as url_choice's
    if seeded in st.session_state:
        return
    st.session_state[seeded] = True
    raw = st.query_params.get_all(key)
    if not raw:
        return
    value = spec.read(raw)
    if value is REFUSED or value == spec.default:
        del st.query_params[key]  # checked_link says why when it was refused
        return
    st.session_state[key] = value
    if raw != [spec.text(value)]:
        st.query_params[key] = spec.text(value)  # as Streamlit corrects a bound widget's


def write_linked(key: str, spec: Field, value: object) -> None:
    """After the widget: ``value`` into the URL as ``?key=``, left out while it is the default."""
    if value == spec.default:
        if key in st.query_params:
            del st.query_params[key]
            refresh_share()
    elif st.query_params.get_all(key) != [spec.text(value)]:
        st.query_params[key] = spec.text(value)
        refresh_share()


def draw_linked(where: object, label: str, key: str, spec: Field, **kwargs: object) -> object:
    """A widget in the link whose value code also sets: :func:`seed_linked`, then
    :meth:`Field.draw` in ``where`` (``kwargs``: more options of the widget), then
    :func:`write_linked`. Returns the widget's value."""
    seed_linked(key, spec)
    value = spec.draw(where, label, key, **kwargs)
    write_linked(key, spec, value)
    return value


class LinkedForm:
    """The fields of one ``st.form``, keyed by their URL names; see the module's docstring."""

    def __init__(self, fields: Mapping[str, Field]) -> None:
        self.fields = dict(fields)
        FIELDS.update(self.fields)

    def seed(self) -> None:
        """Before the form: give each widget the link's value (once per widget: a key already
        in the session holds the student's or an earlier link's choice)."""
        st.session_state[FORM_DRAWN] = True  # the share box then says when forms join the link
        for key, spec in self.fields.items():
            raw = st.query_params.get_all(key)
            if not raw or key in st.session_state:
                continue
            value = spec.read(raw)
            if value is REFUSED or value == spec.default:
                del st.query_params[key]  # checked_link says why when it was refused
            else:
                st.session_state[key] = value
                if raw != [spec.text(value)]:
                    st.query_params[key] = spec.text(value)  # as Streamlit corrects a bound one

    def draw(self, key: str, where: object, label: str, **kwargs: object) -> object:
        """Draw the field ``key`` in ``where`` (``st`` or a column)."""
        return self.fields[key].draw(where, label, key, **kwargs)

    def row(
        self,
        labels: Mapping[str, str],
        extra: Mapping[str, Mapping[str, object]] | None = None,
        **columns: object,
    ) -> list[object]:
        """Draw the fields that ``labels`` names ({key: label}) side by side, one equal column
        each (``columns``: options of ``st.columns``); their values, in that order.
        ``extra``: more options for some fields' widgets ({key: {"help": ...}})."""
        extra = extra or {}
        where = st.columns(len(labels), **columns)
        return [
            self.draw(key, col, label, **extra.get(key, {}))
            for col, (key, label) in zip(where, labels.items(), strict=True)
        ]

    def write(self, values: Mapping[str, object] | None = None) -> None:
        """After the form: the values it returned go into the URL, the defaults out of it.

        ``values`` defaults to the widgets' values in ``st.session_state``.
        """
        for key, spec in self.fields.items():
            value = (values or {}).get(key, st.session_state.get(key, spec.default))
            if value == spec.default:
                if key in st.query_params:
                    del st.query_params[key]
            elif st.query_params.get_all(key) != [spec.text(value)]:
                st.query_params[key] = spec.text(value)
        refresh_share(forms=True)  # the share box holds them before the view computes
