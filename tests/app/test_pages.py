"""Every page of the app runs in both languages without an exception."""

from __future__ import annotations

import re

import pytest

from tests.app.conftest import ROOT, open_page, routes

PAGES = sorted(path for path, _ in routes())


def test_every_page_file_is_routed() -> None:
    assert "pages/home.py" in PAGES
    for path, url in routes():  # deep links need url_path == file name (see hograd_ui/parts/ui.py)
        assert url in ("", path.removeprefix("pages/").removesuffix(".py")), (path, url)
    # pages/ holds the page scripts and nothing else: Streamlit lists every Python file there
    # as a page until app.py's router has run (a fresh server's first deep link showed 27
    # helper modules in the sidebar); their parts live in hograd_ui/parts/
    files = sorted(f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py"))
    assert [f for f in files if f != "pages/__init__.py"] == PAGES


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("page", PAGES)
def test_page_runs(page: str, lang: str) -> None:
    at = open_page(page, lang)
    assert not at.exception
    assert at.title, "every page has a title"
    if lang == "zh":
        assert re.search(r"[\u4e00-\u9fff]", at.title[0].value)


def test_language_switch_changes_the_text() -> None:
    at = open_page(None, "en")
    english = at.title[0].value
    at.radio(key="lang").set_value("zh").run()
    assert at.title[0].value != english
    assert "实验室" in at.title[0].value


def test_the_home_page_links_every_other_page() -> None:
    """A card (or, for the lesson, the link above them) for every page app.py routes: the
    code page, merged after the cards were written, had none (issue 46, item 10)."""
    at = open_page("pages/home.py")
    linked = {el.proto.page for el in at.get("page_link")}
    wanted = {path.removeprefix("pages/").removesuffix(".py") for path, _ in routes()} - {"home"}
    assert {p.rsplit("/", 1)[-1].removesuffix(".py") for p in linked} == wanted, linked


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_home_pages_example_shows_the_lines_that_ran(lang: str) -> None:
    """The seeds' worked example: dy/dx of x³ at 2 is 12 and d²y/dx² is 12. The page prints
    the lines of hograd_labs/derivatives/seed.py that it runs; CPython running the printed
    lines alone, in a fresh process, prints the same two numbers."""
    import subprocess
    import sys

    from hograd_labs.derivatives.seed import shown

    at = open_page("pages/home.py", lang)
    code = at.get("code")[0].proto.code_text
    assert code == shown() and "create_graph=True" in code
    program = f"import torch\n{code}\nprint(dy.item(), d2y.item())\n"
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=300
    )
    assert done.stdout.split() == ["12.0", "12.0"]
    assert [s.value.count("12") for s in at.success] == [2]
