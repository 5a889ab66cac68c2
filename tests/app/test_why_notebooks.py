"""Every tab of "Why gradients of gradients" offers its view as a notebook next to its .py, in
both languages: the notebook is the very script the page shows, cut into cells at its ``# %%``
lines, with the prose in the reader's language (each lab's download test runs it in a kernel
and compares its numbers with the page's)."""

from __future__ import annotations

import nbformat
import pytest

from hograd_ui.i18n import tr
from hograd_ui.notebook import percent_cells
from tests.app.test_downloads import WHY_FORMS, codes, fetch, files, run

assert files  # the fixture, imported for pytest

#: Every tab is a lab (hograd_labs/<tab>/): its notebook is its compute.py cut at its ``# %%``
#: lines, run in a kernel by tests/labs/test_<lab>_download.py; checked here as the page gives
#: it, in both languages.
LABS = [
    (
        "newton",
        {"why.tab": "newton", "why.newton.fn": "(x - 1)^2 + 3*(y + 0.5)^2", "why.newton.steps": 30},
    )
] + [(case, state) for case, state, _, _ in WHY_FORMS]


@pytest.mark.parametrize(("case", "state"), LABS, ids=[c[0] for c in LABS])
def test_a_labs_notebook_is_its_script_cut_at_its_cell_lines_in_both_languages(
    case: str, state: dict, files: dict
) -> None:
    cells = {}
    for lang in ("en", "zh"):
        at = run("why.py", lang, **state)
        plain, _ = fetch(at, files, tr("downloads.py", lang))
        assert plain in codes(at)  # the script shown on the page
        text, name = fetch(at, files, tr("downloads.notebook", lang))
        assert name == f"hograd_why_{state['why.tab']}.ipynb"
        nb = nbformat.reads(text, as_version=4)
        nbformat.validate(nb)
        code = [c.source for c in nb.cells if c.cell_type == "code"]
        assert code[: len(percent_cells(plain))] == percent_cells(plain)  # the script, whole
        prose = [c.source for c in nb.cells if c.cell_type == "markdown"]
        assert prose[0] == tr(f"{state['why.tab']}.nb.title", lang).strip("\n")
        cells[lang] = code
    assert cells["en"] == cells["zh"]  # the same code in either language


# ---- the HVP page's network mode: its script and notebook ------------------------------------

NETWORK = {
    "hvp.mode": "network",
    "hvp.net.dataset": "moons",
    "hvp.net.steps": 50,
    "hvp.net.power": 10,
    "hvp.net.probes": 10,
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_hvp_network_mode_gives_its_script_and_notebook(lang: str, files: dict) -> None:
    """The page offers the lab's module with the settings it trained (run and compared with
    the page's numbers in tests/labs/test_hvp_download.py), and that file cut into cells."""
    from hograd_labs.hvp.cached import script

    at = run("hvp.py", lang, **NETWORK)
    plain, name = fetch(at, files, tr("downloads.py", lang))
    assert name == "hograd_hvp_network.py" and plain in codes(at)
    assert plain == script(("moons", (16,), 50, 0, 3, 10, 10)).source  # the settings asked
    text, name = fetch(at, files, tr("downloads.notebook", lang))
    assert name == "hograd_hvp_network.ipynb"
    nb = nbformat.reads(text, as_version=4)
    nbformat.validate(nb)
    prose = [c.source for c in nb.cells if c.cell_type == "markdown"]
    assert prose[0] == tr("hvp.net.nb.title", lang, limit="2,000").strip("\n")
    assert prose[-1] == tr("hvp.net.nb.figure", lang).strip("\n")
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    assert code[:-1] == percent_cells(plain)  # the script, whole; then the figure
