"""The download buttons through AppTest, in both languages: each file is made (the buttons hold
a function, called here as the server calls it on a click) and its contents are checked against
what the page shows and against the core: CSV read back, .py run, .ipynb validated and run.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import re
from collections.abc import Callable
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.testing.v1 import AppTest

from hograd_core import derivatives, explore, hvp, parse
from hograd_core.cpp_code import derivatives_cpp, hvp_cpp
from hograd_core.curvature import _load_forward_ad
from hograd_labs.hf import compute as hf
from hograd_ui.i18n import tr
from tests.app.charts import chart_elements, figure_of
from tests.app.why import FOLDED as WHY_FOLDED
from tests.apptest import APP_TEST_CEILING
from tests.notebooks import execute as run_cells

ROOT = Path(__file__).resolve().parents[2]
LANGS = ("en", "zh")


@pytest.fixture()
def files(monkeypatch: pytest.MonkeyPatch) -> dict[str, tuple[Callable, str]]:
    """Every file function a button registers, with the file's name, by the id its button
    carries."""
    made: dict[str, tuple[Callable, str]] = {}
    original = MediaFileManager.add_deferred

    def add_deferred(self, data, *args, **kwargs):
        file_id = original(self, data, *args, **kwargs)
        made[file_id] = (data, kwargs.get("file_name"))
        return file_id

    monkeypatch.setattr(MediaFileManager, "add_deferred", add_deferred)
    return made


#: Folded parts that send nothing while closed (lazy_expander): the scripts of the why tabs,
#: and the torch.func forms under the code views. ``run`` unfolds them.
UNFOLDED = (*WHY_FOLDED, "deriv.func.open", "hvp.func.open", "graph.growth.open")


def run(page: str, lang: str, **state: object) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=APP_TEST_CEILING)
    at.session_state["lang"] = lang
    for key in UNFOLDED:
        at.session_state[key] = True
    for key, value in state.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def labels(at: AppTest) -> list[str]:
    return [b.proto.label for b in at.get("download_button")]


def fetch(at: AppTest, files: dict, label: str) -> tuple[str, str]:
    """The file behind the button ``label``: its text and its name."""
    (button,) = [b for b in at.get("download_button") if b.proto.label == label]
    make, name = files[button.proto.deferred_file_id]
    data = make()
    return (data if isinstance(data, str) else data.decode()), name


#: Each program run once per session (keyed by its syntax tree, which has no comments): the
#: same file in the other language differs by its comments only and computes the same.
_RUNS: dict[str, dict] = {}
_KERNEL_RUNS: dict[tuple[str, ...], list[list[dict]]] = {}


def execute(source: str) -> dict:
    """Run ``source`` as a script in this process: its names, and what it printed as
    ``"printed"``; run once per program (see :data:`_RUNS`), the names only read."""
    key = ast.dump(ast.parse(source))
    if key not in _RUNS:
        _load_forward_ad()  # torch's own first-use DeprecationWarning, silenced as the app does
        names: dict = {"__name__": "__main__"}  # run as a script is (a lab's file has a __main__)
        with contextlib.redirect_stdout(io.StringIO()) as out:
            exec(compile(source, "<downloaded>", "exec"), names)  # our generated file
        names["printed"] = out.getvalue()
        _RUNS[key] = names
    return _RUNS[key]


def kernel_outputs(nb: nbformat.NotebookNode) -> list[list[dict]]:
    """Each code cell's outputs, the notebook executed in a real kernel (nbclient) once per
    session for its code: the notebook in the other language, prose aside, shares the run."""
    pytest.importorskip("nbclient", reason="nbclient is a test dependency")
    key = tuple(c.source for c in nb.cells if c.cell_type == "code")
    if key not in _KERNEL_RUNS:
        run_cells(nb)
        _KERNEL_RUNS[key] = [c.get("outputs", []) for c in nb.cells if c.cell_type == "code"]
    return _KERNEL_RUNS[key]


def codes(at: AppTest) -> list[str]:
    """Every code view's text, with the final newline a file has (AppTest strips it)."""
    return [c.value.rstrip("\n") + "\n" for c in at.code]


# ---- derivatives page ------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_derivatives_curves_csv_is_the_charts_data(lang: str, files: dict) -> None:
    at = run("derivatives.py", lang, **{"deriv.fn": "sin(x)*exp(-x^2)", "deriv.points": 200})
    assert tr("downloads.csv.curves", lang) in labels(at)
    assert tr("downloads.notebook", lang) in labels(at)
    text, name = fetch(at, files, tr("downloads.csv.curves", lang))
    assert name == "hograd_derivatives_sin_x_exp_x_2.csv"  # f in the name, made safe
    table = pd.read_csv(io.StringIO(text))
    assert list(table.columns) == ["x", "f", "f'", "f''", "f'''", "f^(4)"]  # order 4, default
    xs = np.linspace(-3.0, 3.0, 200)
    np.testing.assert_array_equal(table["x"].to_numpy(), xs)
    exact = derivatives(parse("sin(x)*exp(-x^2)"), xs, 4, method="taylor").values
    np.testing.assert_allclose(table.iloc[:, 1:].to_numpy().T, exact, rtol=1e-12, atol=1e-12)
    spec = figure_of(chart_elements(at)[0])  # what the chart draws
    f = next(trace for trace in spec["data"] if trace.get("y"))
    y = f["y"]
    if isinstance(y, dict):  # plotly's base64 arrays
        import base64

        y = np.frombuffer(base64.b64decode(y["bdata"]), y["dtype"])
    np.testing.assert_allclose(np.asarray(y, dtype=float), table["f"], rtol=1e-12)


@pytest.mark.parametrize("lang", LANGS)
def test_derivatives_notebook_follows_x0_and_runs(lang: str, files: dict) -> None:
    at = run(
        "derivatives.py", lang, **{"deriv.fn": "tanh(x)", "deriv.points": 100, "deriv.order": 3}
    )
    at.slider(key="deriv.x0").set_value(0.3).run()
    text, name = fetch(at, files, tr("downloads.notebook", lang))
    assert name == "hograd_derivatives_tanh_x.ipynb"
    nb = nbformat.reads(text, as_version=4)
    nbformat.validate(nb)
    assert tr("downloads.nb.deriv.function", lang) in [c.source for c in nb.cells]
    nb.cells.append(nbformat.v4.new_code_cell("print(json.dumps([values.tolist(), at_x0]))"))
    nb.cells[-1].source = "import json\n" + nb.cells[-1].source
    values, at_x0 = json.loads(kernel_outputs(nb)[-1][0]["text"])
    fn = parse("tanh(x)")
    page = derivatives(fn, np.linspace(-3.0, 3.0, 100), 3, method="taylor").values
    np.testing.assert_allclose(values, page, rtol=1e-12, atol=1e-12)
    t = np.tanh(0.3)  # tanh' = 1 - t², tanh'' = -2t(1 - t²), tanh''' = (6t² - 2)(1 - t²)
    closed = [t, 1 - t**2, -2 * t * (1 - t**2), (6 * t**2 - 2) * (1 - t**2)]
    np.testing.assert_allclose(at_x0, closed, rtol=1e-13)


@pytest.mark.parametrize("lang", LANGS)
def test_derivatives_code_and_its_torch_func_form(lang: str, files: dict) -> None:
    state = {"deriv.fn": "1/(1+x^2)", "deriv.points": 100, "deriv.tab": "code"}
    at = run("derivatives.py", lang, **state)
    at.slider(key="deriv.x0").set_value(0.45).run()
    plain, name = fetch(at, files, tr("downloads.py", lang))
    assert name == "hograd_derivatives_1_1_x_2.py" and plain in codes(
        at
    )  # the code shown, as a file
    func, name = fetch(at, files, tr("downloads.func.py", lang))
    assert name == "hograd_derivatives_1_1_x_2_torch_func.py" and func in codes(at)
    assert tr("downloads.func.deriv.compose", lang).splitlines()[0] in func  # its comments
    shown = [float(line.split()[1]) for line in execute(plain)["printed"].splitlines()]
    names = execute(func)
    by_func = [float(line.split()[1]) for line in names["printed"].splitlines()[:-1]]
    np.testing.assert_allclose(by_func, shown, rtol=1e-13)
    exact = derivatives(parse("1/(1+x^2)"), [0.45], 4, method="taylor").values[:, 0]
    np.testing.assert_allclose(shown, exact, rtol=1e-12)
    curves = derivatives(parse("1/(1+x^2)"), np.linspace(-3, 3, 100), 4, method="taylor").values
    np.testing.assert_allclose(names["curves"].numpy(), curves, rtol=1e-11, atol=1e-12)


@pytest.mark.parametrize("lang", LANGS)
def test_derivatives_code_has_a_cpp_tab_with_its_download(lang: str, files: dict) -> None:
    state = {"deriv.fn": "1/(1+x^2)", "deriv.points": 100, "deriv.tab": "code"}
    at = run("derivatives.py", lang, **state)
    at.slider(key="deriv.x0").set_value(0.45).run()
    tabs = [tab.label for tab in at.tabs]
    python = tabs.index(tr("downloads.tab.python", lang))
    assert tabs[python + 1] == tr("downloads.tab.cpp", lang)  # side by side
    cpp, name = fetch(at, files, tr("downloads.cpp", lang))
    assert name == "hograd_derivatives_1_1_x_2.cpp" and cpp in codes(at)  # shown, as a file
    # the generator tests/cpp compiles and runs against the Python script, at the page's x0
    assert cpp == derivatives_cpp(parse("1/(1+x^2)"), 0.45, 4, "hograd_derivatives_1_1_x_2")
    assert "g++ -std=c++20 -O0 hograd_derivatives_1_1_x_2.cpp -o hograd_derivatives_1_1_x_2" in cpp
    assert any(tr("downloads.cpp.caption", lang, name=name[:-4]) == c.value for c in at.caption)


# ---- HVP page --------------------------------------------------------------------------------

HVP_STATE = {"hvp.mode": "typed", "hvp.fn": "x^2*y + sin(y)"}


@pytest.mark.parametrize("lang", LANGS)
def test_hessian_and_eigen_csv_match_the_tables(lang: str, files: dict) -> None:
    at = run("hvp.py", lang, **HVP_STATE, **{"hvp.tab": "hessian"})
    assert {tr("downloads.csv.hessian", lang), tr("downloads.csv.eigen", lang)} <= set(labels(at))
    point = (at.slider(key="hvp.p.x").value, at.slider(key="hvp.p.y").value)
    vector = (at.slider(key="hvp.v.x").value, at.slider(key="hvp.v.y").value)
    r = hvp(parse(HVP_STATE["hvp.fn"]), point, vector)
    text, name = fetch(at, files, tr("downloads.csv.hessian", lang))
    assert name == "hograd_hessian_x_2_y_sin_y.csv"
    h = pd.read_csv(io.StringIO(text), index_col=0)
    np.testing.assert_array_equal(h.to_numpy(), r.hessian)
    x, y = point  # ∂²/∂x² = 2y, ∂²/∂x∂y = 2x, ∂²/∂y² = -sin(y)
    np.testing.assert_allclose(h.to_numpy(), [[2 * y, 2 * x], [2 * x, -np.sin(y)]], atol=1e-12)
    text, name = fetch(at, files, tr("downloads.csv.eigen", lang))
    assert name == "hograd_eigen_x_2_y_sin_y.csv"
    eig = pd.read_csv(io.StringIO(text), index_col=0)
    assert list(eig.columns) == [tr("hvp.eigen.value", lang), "x", "y"]
    shown = at.dataframe[-1].value  # the page's eigen table, 6 significant digits
    assert list(shown.iloc[:, 0]) == list(eig.index)  # e1, e2: the rows' names come first
    shown = shown.iloc[:, 1:]
    for i, row in enumerate(eig.itertuples(index=False)):
        assert shown.iloc[i, 0] == f"{row[0]:.6g}"
        np.testing.assert_allclose(
            abs(shown.iloc[i, 1:].astype(float)), abs(np.array(row[1:])), rtol=1e-5, atol=1e-6
        )


@pytest.mark.parametrize("lang", LANGS)
def test_hvp_code_torch_func_form_and_notebook(lang: str, files: dict) -> None:
    at = run("hvp.py", lang, **HVP_STATE, **{"hvp.tab": "ways"})
    point = (at.slider(key="hvp.p.x").value, at.slider(key="hvp.p.y").value)
    vector = (at.slider(key="hvp.v.x").value, at.slider(key="hvp.v.y").value)
    ex = explore(parse(HVP_STATE["hvp.fn"]), point, vector)
    plain, _ = fetch(at, files, tr("downloads.py", lang))
    func, name = fetch(at, files, tr("downloads.func.py", lang))
    assert (
        plain in codes(at) and func in codes(at) and name == "hograd_hvp_x_2_y_sin_y_torch_func.py"
    )
    by_plain, by_func = execute(plain), execute(func)
    hv_line = next(line for line in by_plain["printed"].splitlines() if line.startswith("Hv "))
    for hv in re.findall(r"\[[^\]]*\]", hv_line):  # the three ways, printed
        np.testing.assert_allclose(json.loads(hv), ex.result.hvp, atol=1e-12)
    for key in ("H", "H2", "H3"):
        np.testing.assert_allclose(by_func[key].numpy(), ex.result.hessian, atol=1e-12)
    np.testing.assert_allclose(by_func["hv"].numpy(), ex.result.hvp, atol=1e-12)
    text, name = fetch(at, files, tr("downloads.notebook", lang))
    nb = nbformat.reads(text, as_version=4)
    nbformat.validate(nb)
    assert name == "hograd_hvp_x_2_y_sin_y.ipynb"
    assert any(repr([float(p) for p in point]) in c.source for c in nb.cells)
    assert tr("downloads.nb.hvp.contour", lang) in [c.source for c in nb.cells]


@pytest.mark.parametrize("lang", LANGS)
def test_hvp_code_has_a_cpp_tab_with_its_download(lang: str, files: dict) -> None:
    at = run("hvp.py", lang, **HVP_STATE, **{"hvp.tab": "ways"})
    point = (at.slider(key="hvp.p.x").value, at.slider(key="hvp.p.y").value)
    vector = (at.slider(key="hvp.v.x").value, at.slider(key="hvp.v.y").value)
    tabs = [tab.label for tab in at.tabs]
    python = tabs.index(tr("downloads.tab.python", lang))
    assert tabs[python + 1] == tr("downloads.tab.cpp", lang)  # side by side
    cpp, name = fetch(at, files, tr("downloads.cpp", lang))
    assert name == "hograd_hvp_x_2_y_sin_y.cpp" and cpp in codes(at)
    assert cpp == hvp_cpp(parse(HVP_STATE["hvp.fn"]), point, vector, "hograd_hvp_x_2_y_sin_y")


# ---- graph and why pages: the scripts as .py --------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_flag_lab_and_trap_scripts_download_as_shown(lang: str, files: dict) -> None:
    at = run("graph.py", lang, **{"graph.flag.code": True, "graph.case.code": True})  # unfolded
    buttons = [b for b in at.get("download_button") if b.proto.label == tr("downloads.py", lang)]
    assert len(buttons) == 2  # the flag lab's run and the trap's
    for button in buttons:
        make, name = files[button.proto.deferred_file_id]
        source = make()
        assert source in codes(at) and name == "hograd_flag_lab.py"
        compile(source, "<flag lab>", "exec")
    assert sum(c.value == tr("downloads.func.flags", lang) for c in at.caption) == 2


@pytest.mark.parametrize("lang", LANGS)
def test_flag_lab_and_trap_programs_download_as_cpp_as_shown(lang: str, files: dict) -> None:
    """Beside each script, its C++ twin as a .cpp (what it prints: tests/cpp)."""
    from hograd_core.flaglab.cpp import flag_cpp

    at = run("graph.py", lang, **{"graph.flag.code": True, "graph.case.code": True})
    buttons = [b for b in at.get("download_button") if b.proto.label == tr("downloads.cpp", lang)]
    assert len(buttons) == 2  # the flag lab's run and the trap's
    scripts = [
        make()
        for b in at.get("download_button")
        if b.proto.label == tr("downloads.py", lang)
        for make, _ in [files[b.proto.deferred_file_id]]
    ]
    shown = []
    for button in buttons:
        make, name = files[button.proto.deferred_file_id]
        source = make()
        assert source in codes(at) and name == "hograd_flag_lab.cpp"
        shown.append(source)
    assert shown[1] == flag_cpp(scripts[1])  # the trap's: no function of the user's
    assert "int main()" in shown[0] and "torch::autograd::grad" in shown[0]


@pytest.mark.parametrize("lang", LANGS)
def test_why_page_script_downloads_as_shown(lang: str, files: dict) -> None:
    at = run("why.py", lang)  # the Newton tab
    source, name = fetch(at, files, tr("downloads.py", lang))
    assert source in codes(at) and name == "hograd_why_newton.py"
    func, name = fetch(at, files, tr("downloads.func.py", lang))
    assert func in codes(at) and name == "hograd_why_newton_torch_func.py"
    assert tr("newton.func.note", lang) in func
    by_plain, by_func = execute(source)["printed"], execute(func)["printed"]
    # each method's line: its status, last step and kind alike, its numbers to rounding (the
    # cost lines, measured or by another route, differ)
    plain = [line.split() for line in by_plain.splitlines() if line.startswith(("gd ", "newton "))]
    func_ = [line.split() for line in by_func.splitlines() if line.startswith(("gd ", "newton "))]
    assert len(plain) == len(func_) == 2
    for a, b in zip(plain, func_, strict=True):
        assert a[:3] + a[-1:] == b[:3] + b[-1:]
        np.testing.assert_allclose(
            [float(x) for x in b[3:-1]], [float(x) for x in a[3:-1]], rtol=1e-9, atol=1e-12
        )


@pytest.mark.parametrize("lang", LANGS)
def test_graph_notebook_counts_what_the_page_shows(lang: str, files: dict) -> None:
    at = run("graph.py", lang, **{"graph.fn": "tanh(x)", "graph.order": 3})
    text, name = fetch(at, files, tr("downloads.notebook", lang))
    nb = nbformat.reads(text, as_version=4)
    nbformat.validate(nb)
    assert name == "hograd_graph_tanh_x.ipynb"
    assert tr("downloads.nb.graph.passes", lang) in [c.source for c in nb.cells]
    nb.cells.append(nbformat.v4.new_code_cell("import json\nprint(json.dumps(nodes))"))
    nodes = json.loads(kernel_outputs(nb)[-1][0]["text"])  # one run for both languages
    growth = figure_of(chart_elements(at)[0])  # the page's growth chart
    assert len(nodes) == 4  # orders 0 to 3; the chart goes on to order 6
    assert any(trace.get("y", [])[:4] == nodes for trace in growth["data"]), growth["data"]


@pytest.mark.parametrize("lang", LANGS)
def test_above_autograds_limit_the_csv_has_every_order_and_the_notebook_says_why(
    lang: str, files: dict
) -> None:
    at = run(
        "derivatives.py", lang, **{"deriv.fn": "tanh(x)", "deriv.order": 12, "deriv.points": 100}
    )
    table = pd.read_csv(io.StringIO(fetch(at, files, tr("downloads.csv.curves", lang))[0]))
    assert list(table.columns)[-1] == "f^(12)" and table.shape == (100, 14)
    exact = derivatives(parse("tanh(x)"), np.linspace(-3, 3, 100), 12, method="taylor").values
    np.testing.assert_array_equal(table.iloc[:, 1:].to_numpy().T, exact)  # Taylor mode, as shown
    nb = nbformat.reads(fetch(at, files, tr("downloads.notebook", lang))[0], as_version=4)
    prose = [c.source for c in nb.cells if c.cell_type == "markdown"]
    assert tr("downloads.nb.deriv.limit", lang, order=12, limit=10, points="100") in prose
    assert any("order = 10" in c.source for c in nb.cells if c.cell_type == "code")


@pytest.mark.parametrize("text", ["3", "x*sin(1/x)", "log(x)"])  # log: NaN for x <= 0
def test_constant_and_undefined_curves_read_back(text: str, files: dict) -> None:
    at = run("derivatives.py", "en", **{"deriv.fn": text, "deriv.points": 100})
    table = pd.read_csv(io.StringIO(fetch(at, files, tr("downloads.csv.curves", "en"))[0]))
    fn = parse(text)
    exact = derivatives(fn, np.linspace(-3, 3, 100), 4, method="autograd").values
    np.testing.assert_allclose(
        table.iloc[:, 1:].to_numpy().T, exact, rtol=1e-12, atol=1e-12, equal_nan=True
    )
    if text == "3":
        assert (table["f"] == 3).all() and not table.iloc[:, 2:].to_numpy().any()


# ---- "Why gradients of gradients": every tab's torch.func form ------------------------------

WHY_FORMS = [  # (case, the tab's state: small runs, the form's note key, rtol against the plain)
    ("hf", {"why.tab": "hf", "why.hf.steps": 3, "why.hf.cg": 6}, "hf.func.note", 1e-11),
    ("quadratic", {"why.tab": "stability", "why.stability.steps": 50}, "stability.func.note", 1e-9),
    (
        "stability",
        {"why.tab": "stability", "why.stability.part": "network", "why.stability.net_steps": 50},
        "stability.func.note",
        1e-9,
    ),
    ("stats", {"why.tab": "stats"}, "stats.func.note", 0.0),
    (
        "maml",
        {"why.tab": "maml", "why.maml.hidden": 8, "why.maml.steps": 50, "why.maml.tasks": 2},
        "maml.func.note",
        1e-12,
    ),
    ("pinn", {"why.tab": "pinn", "why.pinn.steps": 50}, "pinn.func.note", 1e-12),
    ("wgan", {"why.tab": "wgan", "why.wgan.steps": 10}, "wgan.func.note", 1e-12),
]


def numbers(printed: str) -> dict[str, np.ndarray]:
    """A script's ``name value ...`` lines by name, words that are not numbers dropped."""
    rows = {}
    for line in printed.splitlines():
        name, *words = line.split()
        rows[name] = np.array([float(w) for w in words if not w[0].isalpha() or w == "nan"])
    return rows


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(
    ("case", "state", "note", "rtol"), WHY_FORMS, ids=[c[0] for c in WHY_FORMS]
)
def test_why_tab_offers_its_torch_func_form(
    case: str, state: dict, note: str, rtol: float, lang: str, files: dict
) -> None:
    at = run("why.py", lang, **state)
    tab = state["why.tab"]
    plain, name = fetch(at, files, tr("downloads.py", lang))
    assert plain in codes(at) and name == f"hograd_why_{tab}.py"
    func, name = fetch(at, files, tr("downloads.func.py", lang))
    assert name == f"hograd_why_{tab}_torch_func.py"
    assert func in codes(at)  # shown in the expander as it downloads
    params = {}
    if case == "hf":  # its note gives the difference measured on this run
        run_ = hf.run(hf.HFConfig(steps=3, cg_iters=6))
        params["rel"] = f"{hf.func_form_gaps(run_)[0]:.1e}"
    note_text = tr(note, lang, **params)
    assert func.startswith("".join(f"# {line}\n" for line in note_text.splitlines()))
    assert "from torch.func import " in func and func != plain
    by_plain, by_func = numbers(execute(plain)["printed"]), numbers(execute(func)["printed"])
    assert by_func.keys() == by_plain.keys() and by_func
    # measured times differ run to run; Hessian-free's func_gap is the plain run's distance from
    # the torch.func one (0 when the run is the torch.func one); PINN's second_derivatives are
    # two times, the diagonal's entries and its gap from the whole Hessian (rounding only)
    for key in by_plain.keys() - {"seconds", "func_gap", "second_derivatives"}:
        np.testing.assert_allclose(by_func[key], by_plain[key], rtol=rtol, atol=0, err_msg=key)
    if "second_derivatives" in by_plain:
        (*_, entries, gap), (*_, entries_f, gap_f) = (
            by_plain["second_derivatives"],
            by_func["second_derivatives"],
        )
        assert entries == entries_f and max(gap, gap_f) < 1e-10


@pytest.mark.parametrize("lang", LANGS)
def test_the_page_says_the_csv_is_unrounded_and_where_it_shows_0(lang: str, files: dict) -> None:
    """w1²·sin(w2) at (1, π/2): ∂²f/∂w1∂w2 = 2·w1·cos(w2) is 2·cos(π/2) = 1.22e-16 in float64
    (numpy's own cos, the oracle), which the heatmap shows as 0; the page says the file has it."""
    state = {"hvp.mode": "typed", "hvp.fn": "w1**2*sin(w2)", "hvp.tab": "hessian"}
    at = run("hvp.py", lang, **state)
    text, name = fetch(at, files, tr("downloads.csv.hessian", lang))
    assert name == "hograd_hessian_w1_2_sin_w2.csv"
    h = pd.read_csv(io.StringIO(text), index_col=0).to_numpy()
    tiny = 2 * np.cos(np.pi / 2)
    assert h[0, 1] == pytest.approx(tiny, rel=1e-6) and h[0, 1] != 0  # the file: as computed
    said = tr("downloads.csv.as_computed_zero", lang, values=f"{tiny:.3g}, {tiny:.3g}")
    assert said in [c.value for c in at.caption]


@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("x**3", "x_3"),
        ("sin(x)*exp(-x^2)", "sin_x_exp_x_2"),
        ("../../etc/passwd", "etc_passwd"),
        ("<b>x</b>", "b_x_b"),
        ("x" * 100, "x" * 40),
        ("α*β", "f"),
        ("  ", "f"),
        ("é**2", "e_2"),
    ],
)
def test_file_names_hold_a_safe_slug_of_the_function(text: str, slug: str) -> None:
    from hograd_ui.parts.downloads import slug as make_slug

    got = make_slug(text)
    assert got == slug
    assert re.fullmatch(r"[A-Za-z0-9_]{1,40}", got)


@pytest.mark.parametrize("lang", LANGS)
def test_curvature_tab_offers_its_torch_autograd_form(lang: str, files: dict) -> None:
    """The curvature tab's script is torch.func's; its second form is the same file with
    every product by torch.autograd.grad (tests/labs/test_curvature_download.py runs both and
    compares their numbers), shown and downloaded under its own name, its note on top."""
    from hograd_labs.curvature.cached import script as curvature_script
    from hograd_labs.curvature.compute import DiagonalConfig, MomentumConfig

    at = run("why.py", lang, **{"why.tab": "curvature", "why.curv.part": "momentum"})
    plain, name = fetch(at, files, tr("downloads.py", lang))
    assert plain in codes(at) and name == "hograd_why_curvature.py"
    assert tr("downloads.func.py", lang) not in labels(at)  # the first form is torch.func's
    second, name = fetch(at, files, tr("curvature.autograd.py", lang))
    assert name == "hograd_why_curvature_autograd.py" and second in codes(at)
    note = "".join(f"# {line}\n" for line in tr("curvature.autograd.note", lang).splitlines())
    want = curvature_script(DiagonalConfig(), MomentumConfig(), autograd=True).source
    assert second == note + want
    assert "from torch.func import " in second and "    autograd = True  #" in second
