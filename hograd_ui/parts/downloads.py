"""Download rows the pages put under a chart, a table or a code view: CSV, .py (plain and
``torch.func``), .cpp (the same calls in LibTorch), and the current view as a Jupyter notebook.

Every file is made on click (the button holds a function, not the bytes), so a page run costs
nothing for a file nobody asks for. Each helper draws one row; the pages call them in one line.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable, Sequence

import numpy as np
import streamlit as st

from hograd_core.applications.common import Code
from hograd_core.cpp_code import derivatives_cpp, hvp_cpp
from hograd_core.curvature import Grid
from hograd_core.flaglab.cpp import flag_cpp
from hograd_core.func_code import derivatives_func_code, hessian_func_code
from hograd_core.graphs import GRAPH_BUDGET
from hograd_core.hessian import HVPResult
from hograd_core.language import Function
from hograd_core.nested_autograd import BUDGET, DerivativeResult
from hograd_ui.csv_tables import curves_csv, eigen_csv, grid_csv, hessian_csv
from hograd_ui.notebook import derivatives_notebook, graph_notebook, hvp_notebook
from hograd_ui.parts.ui import lazy_expander, t
from hograd_ui.plot_kit import clean

ICON = ":material/download:"
PY, CSV, IPYNB, CPP = "text/x-python", "text/csv", "application/x-ipynb+json", "text/x-c++src"

# Every key a whole literal (the locale test finds used keys that way).
DERIV_COMMENTS = {
    "compose": "downloads.func.deriv.compose",
    "at_x0": "downloads.func.deriv.at_x0",
    "vmap": "downloads.func.deriv.vmap",
}
HESSIAN_COMMENTS = {
    "grad": "downloads.func.hvp.grad",
    "hessian": "downloads.func.hvp.hessian",
    "jacfwd": "downloads.func.hvp.jacfwd",
    "hvp": "downloads.func.hvp.hvp",
    "vmap": "downloads.func.hvp.vmap",
    "eigh": "downloads.func.hvp.eigh",
}
DERIV_TEXTS = {
    "title": "downloads.nb.deriv.title",
    "function": "downloads.nb.deriv.function",
    "grid": "downloads.nb.deriv.grid",
    "limit": "downloads.nb.deriv.limit",
    "plot": "downloads.nb.deriv.plot",
    "x0": "downloads.nb.deriv.x0",
}
GRAPH_TEXTS = {
    "title": "downloads.nb.graph.title",
    "function": "downloads.nb.graph.function",
    "passes": "downloads.nb.graph.passes",
    "growth": "downloads.nb.graph.growth",
    "drawing": "downloads.nb.graph.drawing",
}
HVP_TEXTS = {
    "title": "downloads.nb.hvp.title",
    "function": "downloads.nb.hvp.function",
    "hessian": "downloads.nb.hvp.hessian",
    "hvp": "downloads.nb.hvp.hvp",
    "heatmap": "downloads.nb.hvp.heatmap",
    "contour": "downloads.nb.hvp.contour",
}


def _texts(keys: dict[str, str], **params: object) -> dict[str, str]:
    return {name: t(key, **params) for name, key in keys.items()}


def _button(label: str, make: Callable[[], str], name: str, mime: str, key: str) -> None:
    st.download_button(label, make, name, mime, icon=ICON, on_click="ignore", key=key)


def slug(text: str) -> str:
    """A safe piece of a file name for the function ``text``: ASCII letters and digits, every
    other run of characters one "_", at most 40 characters ("sin(x)*exp(-x^2)" ->
    "sin_x_exp_x_2"); "f" when nothing is left (a name in another script)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    cleaned = re.sub(r"[^A-Za-z0-9]+", "_", ascii_text).strip("_")[:40].strip("_")
    return cleaned or "f"


def _tag(text: str) -> str:
    """A short stable tag of ``text``: a button key that differs for different code."""
    return hashlib.sha1(text.encode()).hexdigest()[:10]


#: The second form's download label, expander title and caption, and its file name's suffix:
#: the torch.func form, unless a page's second form is another (the curvature tab's is
#: torch.autograd's, its first being torch.func's).
FUNC_FORM = ("downloads.func.py", "downloads.func.title", "downloads.func.caption", "_torch_func")


def code_file(
    source: str,
    name: str,
    page: str,
    func_source: str | None = None,
    notebook: Callable[[], str] | None = None,
    form: tuple[str, str, str, str] = FUNC_FORM,
) -> None:
    """The code view's .py download and, with ``func_source``, its second form (``form``: the
    keys of its label, title and caption, and its file name's suffix; torch.func's unless
    said): shown in an expander, and a second download; with ``notebook`` (made on click), the
    view as a notebook. ``page`` namespaces the buttons' keys ("deriv")."""
    label, title, caption, suffix = form
    tag = _tag(source + (func_source or ""))
    with st.container(horizontal=True):
        _button(t("downloads.py"), lambda: source, f"{name}.py", PY, f"{page}.download.py.{tag}")
        if func_source is not None:
            _button(
                t(label),
                lambda: func_source,
                f"{name}{suffix}.py",
                PY,
                f"{page}.download.func.{tag}",
            )
        if notebook is not None:
            _button(
                t("downloads.notebook"),
                notebook,
                f"{name}.ipynb",
                IPYNB,
                f"{page}.download.ipynb.{tag}",
            )
    if func_source is not None:
        box = lazy_expander(t(title), f"{page}.func.open", icon=":material/functions:")
        with box:
            if box.open:
                st.caption(t(caption))
                st.code(func_source, language="python")


def language_tabs() -> tuple:
    """The two tabs of a code view: Python (PyTorch) and C++ (LibTorch)."""
    return st.tabs([t("downloads.tab.python"), t("downloads.tab.cpp")])


def cpp_file(source: str, name: str, page: str) -> None:
    """A C++ tab: what it is and how to build it, the program, and its .cpp download."""
    st.caption(t("downloads.cpp.caption", name=name))
    st.code(source, language="cpp")
    _button(
        t("downloads.cpp"),
        lambda: source,
        f"{name}.cpp",
        CPP,
        f"{page}.download.cpp.{_tag(source)}",
    )


def derivatives_code(
    fn: Function, plain: str, x0: float, order: int, grid: tuple, *, page: str
) -> None:
    """The derivatives page's code view: the script, shown, its .py and grad(grad(f)) with vmap
    over the grid; beside it, the same calls in C++. ``page`` namespaces the buttons' keys."""
    name = f"hograd_derivatives_{slug(fn.text)}"
    python, cpp = language_tabs()
    with python:
        st.code(plain, language="python")
        func = derivatives_func_code(fn, x0, order, grid, _texts(DERIV_COMMENTS))
        code_file(plain, name, page, func)
    with cpp:
        cpp_file(derivatives_cpp(fn, x0, order, name), name, page)


def hvp_code(
    fn: Function, plain: str, point: Sequence[float], vector: Sequence[float], *, page: str
) -> None:
    """The HVP page's code view: the script, shown, its .py and hessian, jacfwd(jacrev),
    jvp(grad), vmap; beside it, the three ways in C++. ``page`` namespaces the keys."""
    name = f"hograd_hvp_{slug(fn.text)}"
    python, cpp = language_tabs()
    with python:
        st.code(plain, language="python")
        func = hessian_func_code(fn, point, vector, _texts(HESSIAN_COMMENTS))
        code_file(plain, name, page, func)
    with cpp:
        cpp_file(hvp_cpp(fn, point, vector, name), name, page)


def flag_code(source: str, page: str) -> None:
    """Under a flag-lab or trap script: the .py, and why it has no torch.func form."""
    code_file(source, "hograd_flag_lab", page)
    st.caption(t("downloads.func.flags"))


def flag_code_tabs(snippet: str, fn: Function | None, *, page: str, caption: str) -> None:
    """A flag-lab or trap script and, beside it, its C++ twin (``fn``: the flag lab's
    function; None for a classic case). ``page`` namespaces the buttons' keys; ``caption`` is
    the key of the C++ tab's caption (its ``{name}``: the file's name)."""
    python, cpp = language_tabs()
    with python:
        st.code(snippet, language="python")
        flag_code(snippet, page)
    with cpp:
        name = "hograd_flag_lab"
        source = flag_cpp(snippet, fn, name)
        st.caption(t(caption, name=name))
        st.code(source, language="cpp")
        _button(
            t("downloads.cpp"),
            lambda: source,
            f"{name}.cpp",
            CPP,
            f"{page}.download.cpp.{_tag(source)}",
        )


def _view(page: str) -> dict:
    """This session's derivatives view as the point views last drew it (x0 moves in a fragment
    rerun, after the row under the chart was drawn; the notebook reads it when clicked)."""
    return st.session_state.setdefault(f"{page}.download.view", {})


def note_x0(x0: float, page: str) -> None:
    """Called by the point views: the x0 the notebook will use."""
    _view(page)["x0"] = float(x0)


def derivatives_row(fn: Function, result: DerivativeResult, page: str) -> None:
    """Under the derivatives chart: the curves as CSV and the view (with the current x0) as a
    notebook. ``page`` namespaces the buttons' keys and the view kept for the notebook."""
    low, high, points = float(result.xs[0]), float(result.xs[-1]), int(result.xs.size)
    view = _view(page)
    texts = _texts(
        DERIV_TEXTS, limit=BUDGET.max_order_autograd, order=result.order, points=f"{points:,}"
    )

    def notebook() -> str:  # runs on click, outside the script run: no st.* calls here
        x0 = min(max(view.get("x0", 0.5), low), high)
        return derivatives_notebook(fn, low, high, points, result.order, x0, texts)

    with st.container(horizontal=True):
        name = f"hograd_derivatives_{slug(fn.text)}"
        _button(
            t("downloads.csv.curves"),
            lambda: curves_csv(result),
            f"{name}.csv",
            CSV,
            f"{page}.download.csv",
        )
        _button(t("downloads.notebook"), notebook, f"{name}.ipynb", IPYNB, f"{page}.download.ipynb")


def _as_computed(values: np.ndarray) -> None:
    """Say that the file holds float64 as computed, and which entries the page shows as 0
    (clean(): below 1e-12 of the largest; cos(π/2) is 6.1e-17 in float64)."""
    values = np.asarray(values, dtype=np.float64)
    hidden = values[(clean(values) == 0) & (values != 0)]
    if hidden.size:
        shown = ", ".join(f"{v:.3g}" for v in hidden[:4]) + (", …" if hidden.size > 4 else "")
        st.caption(t("downloads.csv.as_computed_zero", values=shown))
    else:
        st.caption(t("downloads.csv.as_computed"))


def hessian_file(r: HVPResult, text: str, page: str) -> None:
    """Under the Hessian's heatmap: the matrix as CSV, for the function ``text``."""
    _button(
        t("downloads.csv.hessian"),
        lambda: hessian_csv(r.hessian, r.variables),
        f"hograd_hessian_{slug(text)}.csv",
        CSV,
        f"{page}.download.hessian",
    )
    _as_computed(r.hessian)


def grid_file(grid: Grid, names: Sequence[str], text: str, page: str) -> None:
    """Under the contour (and the surface): f on their grid as CSV, one row per point."""
    _button(
        t("downloads.csv.grid"),
        lambda: grid_csv(grid.x, grid.y, grid.z, names),
        f"hograd_grid_{slug(text)}.csv",
        CSV,
        f"{page}.download.grid",
    )


def eigen_file(r: HVPResult, text: str, page: str, value: str) -> None:
    """Under the eigen table: the table as CSV (full float64, where the page shows 6 digits);
    ``value`` heads the eigenvalues' column, as on the page."""
    _button(
        t("downloads.csv.eigen"),
        lambda: eigen_csv(r.eigenvalues, r.eigenvectors, r.variables, value),
        f"hograd_eigen_{slug(text)}.csv",
        CSV,
        f"{page}.download.eigen",
    )
    _as_computed(np.concatenate([np.ravel(r.eigenvalues), np.ravel(r.eigenvectors)]))


def hvp_row(
    fn: Function, point: Sequence[float], vector: Sequence[float], radius: float, page: str
) -> None:
    """Under the HVP page's table: the view as a notebook."""
    texts = _texts(HVP_TEXTS)
    p, v = np.asarray(point, dtype=np.float64), np.asarray(vector, dtype=np.float64)
    _button(
        t("downloads.notebook"),
        lambda: hvp_notebook(fn, p, v, radius, texts),
        f"hograd_hvp_{slug(fn.text)}.ipynb",
        IPYNB,
        f"{page}.download.ipynb",
    )


def why_code(
    source: str,
    func_source: str | None = None,
    notebook: Callable[[], str] | None = None,
    form: tuple[str, str, str, str] = FUNC_FORM,
    *,
    page: str,
    tab: str,
) -> None:
    """Under a script of a tab of a page (a lab of "Why gradients of gradients"): the .py,
    named ``hograd_<page>_<tab>``, its second form when there is one (torch.func's, unless
    ``form`` says another: see :func:`code_file`), and the lab's own notebook (made on click).
    ``page`` namespaces the buttons' keys."""
    code_file(source, f"hograd_{page}_{tab}", page, func_source, notebook, form)


def why_script(
    code: Code,
    func_source: str | None = None,
    kind: str | None = None,
    notebook: Callable[[], str] | None = None,
    *,
    page: str,
    tab: str,
) -> None:
    """A tab's script (``kind``: its name, for the expander's key), folded until asked for (it
    and its highlighter are the heaviest part of a tab's first screen), with line numbers and
    its create_graph lines named; then its downloads (:func:`why_code`)."""
    box = lazy_expander(
        t("downloads.script.title"), f"{page}.code.{kind or 'script'}", icon=":material/code:"
    )
    with box:
        if box.open:
            st.code(code.source, language="python", line_numbers=True, height=480)
            st.caption(t("downloads.script.marked", lines=", ".join(str(n) for n in code.marked)))
    why_code(code.source, func_source, notebook, page=page, tab=tab)


def graph_row(fn: Function, x0: float, order: int, page: str) -> None:
    """Under the graph's growth chart: the view as a notebook."""
    texts = _texts(GRAPH_TEXTS, limit=GRAPH_BUDGET.max_draw)
    _button(
        t("downloads.notebook"),
        lambda: graph_notebook(fn, x0, order, texts),
        f"hograd_graph_{slug(fn.text)}.ipynb",
        IPYNB,
        f"{page}.download.ipynb",
    )
