"""Every tab of "Why gradients of gradients" offers its view as a notebook next to its .py, in
both languages: the notebook holds the very script the page shows (cut into cells), the prose
in the reader's language, and, run in a real kernel (nbclient, python3), prints the numbers the
.py prints at the same settings (the .py is checked against the core in tests/core)."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import numpy as np
import pytest

from hograd_core.notebook import percent_cells
from hograd_ui.i18n import tr
from tests.app.test_downloads import WHY_FORMS, codes, execute, fetch, files, numbers, run

assert files  # the fixture, imported for pytest

ROOT = Path(__file__).resolve().parents[2]
#: Tabs that are labs (hograd_labs/<case>/): their notebook is their compute.py cut at its
#: ``# %%`` lines, run in a kernel by tests/labs/test_<case>_download.py; checked here as the
#: page gives it, in both languages.
LABS = [("newton", {"why.tab": "newton", "why.newton.fn": "(x - 1)^2 + 3*(y + 0.5)^2",
                    "why.newton.steps": 30})] + [
    (case, state) for case, state, _, _ in WHY_FORMS if (ROOT / "hograd_labs" / case).is_dir()]  # fmt: skip
CASES = [(case, state) for case, state, _, _ in WHY_FORMS if (case, state) not in LABS]
TIMEOUT = 300  # seconds a cell may take at most (a bound, not a measurement)


def notebook(case: str, state: dict, lang: str, files: dict) -> tuple[object, str]:
    """The tab's notebook as the page gives it, validated, and the page's .py."""
    at = run("why.py", lang, **state)
    tab = state["why.tab"]
    plain, _ = fetch(at, files, tr("downloads.py", lang))
    assert plain in codes(at)  # the script shown on the page
    text, name = fetch(at, files, tr("downloads.notebook", lang))
    assert name == f"hograd_why_{tab}.ipynb"
    nb = nbformat.reads(text, as_version=4)
    nbformat.validate(nb)
    prose = [c.source for c in nb.cells if c.cell_type == "markdown"]
    assert prose[0] == tr(f"why.nb.{case}.title", lang)
    assert prose[-1] == tr(f"why.nb.{case}.figure", lang)
    assert tr("why.nb.script", lang) in prose and tr("why.nb.results", lang) in prose
    return nb, plain


def script_of(nb: object) -> str:
    """The script the notebook's cells hold, put back together."""
    cells = [c.source for c in nb.cells if c.cell_type == "code"]
    cells = [c for c in cells if not c.startswith("text = ")]
    run_at = next(i for i, c in enumerate(cells) if c.startswith("%%capture run\n"))
    parts = cells[:run_at] + [cells[run_at].removeprefix("%%capture run\n")]
    return "\n\n\n".join(parts) + "\n"


@pytest.mark.parametrize(("case", "state"), CASES, ids=[c[0] for c in CASES])
def test_why_notebook_runs_and_prints_what_the_script_prints(
    case: str, state: dict, files: dict
) -> None:
    nbclient = pytest.importorskip("nbclient", reason="nbclient is a test dependency")
    nb, plain = notebook(case, state, "en", files)
    assert script_of(nb) == plain  # the same script, nothing added or lost
    nb.cells.append(nbformat.v4.new_code_cell(
        "import json\nprint(json.dumps({'printed': printed, 'text': globals().get('text')}))"
    ))  # fmt: skip
    nbclient.NotebookClient(nb, timeout=TIMEOUT, startup_timeout=TIMEOUT,
                            kernel_name="python3").execute()  # fmt: skip
    for cell in nb.cells:
        assert not [o for o in cell.get("outputs", []) if o["output_type"] == "error"], cell
    got = json.loads(nb.cells[-1].outputs[0]["text"])
    by_plain = numbers(execute(plain)["printed"])
    assert set(got["printed"]) == set(by_plain)
    for name, values in by_plain.items():
        mine = np.array([v for v in got["printed"][name] if not isinstance(v, str)], float)
        np.testing.assert_allclose(mine, values, rtol=1e-12, atol=0, err_msg=name)
    mime = "application/vnd.plotly.v1+json"
    drawn = [o for o in nb.cells[-2].outputs if mime in o.get("data", {})]
    assert len(drawn) == 1  # the last cell of the download draws the tab's figure


@pytest.mark.parametrize(("case", "state"), CASES, ids=[c[0] for c in CASES])
def test_why_notebook_in_chinese_has_chinese_prose_and_the_same_code(
    case: str, state: dict, files: dict
) -> None:
    zh, plain = notebook(case, state, "zh", files)
    assert script_of(zh) == plain
    en, _ = notebook(case, state, "en", files)
    code = [[c.source for c in nb.cells if c.cell_type == "code"] for nb in (en, zh)]
    assert code[0] == code[1]
    assert [c.source for c in zh.cells if c.cell_type == "markdown"] == [
        tr(key, "zh") for key in (f"why.nb.{case}.title", "why.nb.script", "why.nb.run",
                                  "why.nb.results", f"why.nb.{case}.figure")
    ]  # fmt: skip


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
        assert prose[0] == tr(f"{case}.nb.title", lang).strip("\n")
        cells[lang] = code
    assert cells["en"] == cells["zh"]  # the same code in either language


# ---- the HVP page's network mode: its script and notebook ------------------------------------

NETWORK = {"hvp.mode": "network", "hvp.net.dataset": "moons", "hvp.net.steps": 50,
           "hvp.net.power": 10, "hvp.net.probes": 10}  # fmt: skip


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
