"""The home page loads what it draws, not every lab: app.py's router and the home page, run
through AppTest in a fresh interpreter, leave the flag lab's gallery, the graph and Hessian
kernels, the inspector and the figure kits out of ``sys.modules`` (they load when a page that
uses them opens), and load at most HOME_MODULES of hograd's modules in all."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.apptest import APP_TEST_CEILING

ROOT = Path(__file__).resolve().parents[2]

#: hograd modules (packages included) the home page loads through app.py, besides the labs'
#: declarations; 60 before the labs' own code moved into them and the flag lab's settings, the
#: lesson's kernel calls and the gallery case's runner were loaded on first use; 40 before the
#: home page's example ran its own lines in plain PyTorch instead of hograd's derivatives, the
#: lesson's step count came from its declaration and the function language loaded with the
#: first page that takes a function; 28 before the class's database, the teacher's key, the
#: heavy-work gate, the parse cache and the projector's screen fit were loaded by the runs
#: that use them (a student in a class, a lecturer's link, a page that computes, present=1).
HOME_MODULES = 20
#: The labs' declarations (``hograd_labs/<lab>/__init__.py``: a ``Lab`` value that imports
#: only hograd_ui.lab, which an import contract keeps so): app.py reads every one to route a
#: link and to know each page's keys, so they are loaded on every page, and counted apart.
DECLARATIONS = sorted(
    f"hograd_labs.{p.parent.name}" for p in (ROOT / "hograd_labs").glob("*/__init__.py")
)

#: modules only other pages use
NOT_LOADED = (
    "hograd_core.flaglab.cases",
    "hograd_core.flaglab.flags",
    "hograd_core.flaglab.gallery",
    "hograd_core.graphs",
    "hograd_core.hessian",
    "hograd_core.curvature",
    "hograd_core.inspector",
    "hograd_core.language.parser",
    "hograd_labs.classroom.cached",
    "hograd_labs.classroom.compute",
    "hograd_labs.lesson.compute",
    "hograd_core.nested_autograd",
    "hograd_core.taylor",
    "hograd_serving.cached",
    "hograd_serving.gate",
    "hograd_serving.jobs",
    "hograd_serving.teacher_door",
    "hograd_serving.teacher_key",
    "hograd_ui.parts.screen_fit",
    "hograd_ui.plot_kit",
    "hograd_ui.tensor_drawing",
)

#: the packages whose modules are listed: hograd's, and SQLAlchemy, which only a class needs
#: (0.16 s of a fresh server's first page here)
MODULES = {"hograd_cli", "hograd_core", "hograd_labs", "hograd_serving", "hograd_ui", "sqlalchemy"}

_RUN = f"""
import json, sys
from streamlit.testing.v1 import AppTest
at = AppTest.from_file({str(ROOT / "app.py")!r}, default_timeout={APP_TEST_CEILING})
at.run()
assert not at.exception, at.exception
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in {MODULES})))
"""


def test_the_home_page_loads_only_what_it_draws() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _RUN],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=APP_TEST_CEILING,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert not [m for m in NOT_LOADED if m in loaded]
    assert "sqlalchemy" not in loaded  # the class's database, for nobody in a class
    loaded = [m for m in loaded if m.startswith("hograd")]
    assert "hograd_labs.derivatives.seed" in loaded  # the home page's live example ran
    assert [m for m in loaded if m in DECLARATIONS] == DECLARATIONS
    rest = [m for m in loaded if m not in DECLARATIONS]
    assert len(rest) <= HOME_MODULES, rest
