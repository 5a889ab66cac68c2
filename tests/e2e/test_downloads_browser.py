"""Downloads in real Chromium: a click on a button delivers the file (Playwright's
expect_download), and the file holds the page's numbers. Screenshots of where the buttons sit,
in English and Chinese, go to tests/artifacts/."""

from __future__ import annotations

import contextlib
import io

import nbformat
import numpy as np
import pandas as pd
import pytest

from hograd_core import hvp, parse
from hograd_labs.hvp.presets import example
from hograd_ui.i18n import tr
from tests.e2e.conftest import ARTIFACTS, FUNCTION_BOX, download, wait_for_app

pytestmark = pytest.mark.e2e


def _open(page, path: str, lang: str, query: str = "") -> None:
    page.goto(f"{page.base}/{path}?lang={lang}{query}")
    wait_for_app(page)
    page.wait_for_selector(".js-plotly-plot", timeout=120_000)
    wait_for_app(page)
    assert page.locator("[data-testid='stException']").count() == 0


def _shot(page, label: str, name: str) -> None:
    """The viewport around the button ``label``: where it sits, as a learner sees it."""
    button = page.locator("[data-testid='stDownloadButton']", has_text=label).first
    button.scroll_into_view_if_needed()
    page.evaluate("window.scrollBy(0, 250)")  # the chart or table above the row in view
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_derivative_curves_and_notebookdownload(page, lang: str) -> None:
    _open(page, "derivatives", lang)
    _shot(page, tr("downloads.csv.curves", lang), f"downloads-deriv-{lang}")
    table = pd.read_csv(io.BytesIO(download(page, tr("downloads.csv.curves", lang))))
    xs = np.linspace(-3.0, 3.0, 1000)  # the page's defaults: x**3, order 4, 1,000 points
    np.testing.assert_array_equal(table["x"].to_numpy(), xs)
    exact = np.stack([xs**3, 3 * xs**2, 6 * xs, 6 + 0 * xs, 0 * xs])
    np.testing.assert_allclose(table.iloc[:, 1:].to_numpy().T, exact, rtol=1e-12, atol=1e-12)
    nb = nbformat.reads(download(page, tr("downloads.notebook", lang)).decode(), as_version=4)
    nbformat.validate(nb)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "return x ** 3" in code and "np.linspace(-3.0, 3.0, 1000)" in code
    assert tr("downloads.nb.deriv.function", lang) in [c.source for c in nb.cells]
    assert page.locator("[data-testid='stException']").count() == 0


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_hessian_eigen_csv_and_codedownload(page, lang: str) -> None:
    _open(page, "hvp", lang)
    _shot(page, tr("downloads.notebook", lang), f"downloads-hvp-notebook-{lang}")
    nb = nbformat.reads(download(page, tr("downloads.notebook", lang)).decode(), as_version=4)
    nbformat.validate(nb)
    assert tr("downloads.nb.hvp.hessian", lang) in [c.source for c in nb.cells]
    page.get_by_role("tab", name=tr("hvp.tab.hessian", lang)).click()
    wait_for_app(page)
    _shot(page, tr("downloads.csv.eigen", lang), f"downloads-hvp-hessian-{lang}")
    eig = pd.read_csv(io.BytesIO(download(page, tr("downloads.csv.eigen", lang))), index_col=0)
    h = pd.read_csv(io.BytesIO(download(page, tr("downloads.csv.hessian", lang))), index_col=0)
    names = list(h.columns)
    fn_text = page.locator(FUNCTION_BOX).first
    fn = parse(fn_text.input_value())
    where = example(fn.text, len(names))  # the point a preset opens at (its sliders show it)
    r = hvp(fn, where.point, where.vector)
    np.testing.assert_allclose(h.to_numpy(), r.hessian, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(eig.iloc[:, 0].to_numpy(), r.eigenvalues, rtol=1e-12, atol=1e-12)
    page.get_by_role("tab", name=tr("hvp.tab.ways", lang)).click()
    wait_for_app(page)
    _shot(page, tr("downloads.func.py", lang), f"downloads-hvp-code-{lang}")
    source = download(page, tr("downloads.func.py", lang)).decode()
    assert "H = hessian(f)(w)" in source and "jacfwd(jacrev(f))" in source
    assert page.locator("[data-testid='stException']").count() == 0


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_derivatives_code_tab_downloads_both_forms(page, lang: str) -> None:
    _open(page, "derivatives", lang)
    page.get_by_role("tab", name=tr("deriv.tab.code", lang)).click()
    wait_for_app(page)
    _shot(page, tr("downloads.py", lang), f"downloads-deriv-code-{lang}")
    plain = download(page, tr("downloads.py", lang)).decode()
    func = download(page, tr("downloads.func.py", lang)).decode()
    page.get_by_text(tr("downloads.func.title", lang)).click()  # the torch.func form, shown
    page.wait_for_timeout(500)
    _shot(page, tr("downloads.func.py", lang), f"downloads-deriv-func-{lang}")
    page.locator(
        "[data-testid='stExpander'] [data-testid='stCode']"
    ).last.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"downloads-deriv-func-open-{lang}.png"))
    assert "create_graph=True" in plain and "grad(derivatives[-1])" in func
    exact = [0.125, 0.75, 3.0, 6.0, 0.0]  # x**3 at the default x0 = 0.5, orders 0 to 4
    for source in (plain, func):
        with contextlib.redirect_stdout(io.StringIO()) as out:
            exec(compile(source, "<downloaded>", "exec"), {})  # our generated file
        values = [float(line.split()[1]) for line in out.getvalue().splitlines()[:5]]
        assert values == exact


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_graph_notebook_and_flag_lab_scriptdownload(page, lang: str) -> None:
    _open(page, "graph", lang, "&graph.growth.open=true")  # the growth chart unfolded
    _shot(page, tr("downloads.notebook", lang), f"downloads-graph-{lang}")
    nb = nbformat.reads(download(page, tr("downloads.notebook", lang)).decode(), as_version=4)
    nbformat.validate(nb)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "return x ** 3" in code and "order = 2" in code  # the page's defaults
    page.get_by_text(tr("graph.result.code", lang)).first.click()  # the script's expander
    wait_for_app(page)
    _shot(page, tr("downloads.py", lang), f"downloads-flag-lab-{lang}")
    source = download(page, tr("downloads.py", lang)).decode()
    assert source.startswith("import torch") and "torch.autograd.grad" in source
    assert page.locator("[data-testid='stException']").count() == 0


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_why_page_newton_script_downloads(page, lang: str) -> None:
    _open(page, "why", lang)
    _shot(page, tr("downloads.func.py", lang), f"downloads-why-{lang}")
    plain = download(page, tr("downloads.py", lang)).decode()
    func = download(page, tr("downloads.func.py", lang)).decode()
    assert "create_graph=second" in plain and "hessian(f)(w)" in func
    assert tr("newton.func.note", lang) in func
    assert page.locator("[data-testid='stException']").count() == 0
