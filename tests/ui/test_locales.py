"""The language files locales/{en,zh}.toml: they load, agree with each other, and every key is
used by the code and every key the code names is there."""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Mapping
from pathlib import Path

import pytest

from hograd_ui.i18n import (
    LANGUAGES,
    LOCALES,
    RUNTIME_KEYS,
    LocaleError,
    _load,
    _merged,
    catalogue,
    error_text,
    lab_folders,
    placeholders,
    tr,
)
from pages import SITE

ROOT = Path(__file__).resolve().parents[2]
#: The app's Python: a key is used if one of these holds it as a whole string literal.
APP_SOURCES = (
    "app.py",
    "pages",
    "hograd_cli",
    "hograd_core",
    "hograd_serving",
    "hograd_ui",
    "hograd_labs",
)

#: Keys that nothing in the app shows today (no literal, not built at run time); kept in the
#: files on purpose until someone decides. The test fails when this list goes stale either way.
KNOWN_UNUSED = frozenset(
    {
        "app.title",  # the browser title is the literal "hograd" (app.py, st.set_page_config)
        "app.error.title",  # show_error (hograd_ui/parts/ui.py) prints the message alone
        "deriv.cost.table.order",  # the cost tab shows a chart, no table
        "deriv.cost.table.mb",
        "graph.values",  # the graph page has no values table of its own
        "graph.result.results",  # show_outcome's table has no title
    }
)

#: Chinese values allowed to have no CJK character (a label that is code in both languages).
#: None today: all 494 keys have English with letters and Chinese with CJK (100 %), so the
#: check is exact instead of a share that would let a few dozen untranslated strings through.
NO_CJK = frozenset[str]()

CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
KEY_SHAPE = re.compile(r"[a-z_]+(\.[A-Za-z0-9_]+)+")


@pytest.fixture(scope="module")
def tables() -> dict[str, Mapping[str, str]]:
    return {lang: catalogue(lang) for lang in LANGUAGES}


def _app_files() -> list[Path]:
    files: list[Path] = []
    for name in APP_SOURCES:
        path = ROOT / name
        files += [path] if path.is_file() else sorted(path.rglob("*.py"))
    # Skip the old hograd_core/text_*.py tables (every key is a literal there) and the loader
    # (RUNTIME_KEYS are counted on their own below).
    return [
        f
        for f in files
        if not (f.parent.name == "hograd_core" and f.name.startswith("text_"))
        and f != ROOT / "hograd_ui" / "i18n.py"
    ]


@functools.cache
def _trees() -> tuple[tuple[Path, ast.Module], ...]:
    return tuple((f, ast.parse(f.read_text(encoding="utf-8"), str(f))) for f in _app_files())


def _literals() -> set[str]:
    return {
        node.value
        for _, tree in _trees()
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }


def _named_keys() -> dict[str, str]:
    """Literal first arguments of t(...), tr(...) and *Error(...) calls, with where they are."""
    found: dict[str, str] = {}
    for path, tree in _trees():
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and node.args):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            first = node.args[0]
            if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
                continue
            translated = name in ("t", "tr")
            error = name.endswith("Error") and KEY_SHAPE.fullmatch(first.value) is not None
            if translated or error:
                found[first.value] = f"{path.relative_to(ROOT)}:{node.lineno}"
    return found


# ---- the files themselves ------------------------------------------------------------------


def test_both_files_load_with_the_same_keys(tables: dict[str, Mapping[str, str]]) -> None:
    en, zh = tables["en"], tables["zh"]
    assert len(en) > 400
    assert set(en) == set(zh)
    assert all(isinstance(v, str) for t in tables.values() for v in t.values())


def _write(folder: Path, en: str, zh: str) -> Path:
    (folder / "en.toml").write_text(en, encoding="utf-8")
    (folder / "zh.toml").write_text(zh, encoding="utf-8")
    return folder


def test_files_whose_keys_differ_are_refused(tmp_path: Path) -> None:
    folder = _write(tmp_path, '"a.one" = "one"\n"a.two" = "two"\n', '"a.one" = "一"\n')
    for lang in LANGUAGES:
        with pytest.raises(LocaleError, match=r"same keys.*only in en\.toml: a\.two"):
            _load(folder, lang)
    _write(tmp_path, '"a.one" = "one"\n', '"a.one" = "一"\n')
    assert dict(_load(folder, "zh")) == {"a.one": "一"}


def test_a_repeated_key_is_refused_naming_the_file(tmp_path: Path) -> None:
    en = (LOCALES / "en.toml").read_text(encoding="utf-8")
    zh = (LOCALES / "zh.toml").read_text(encoding="utf-8")
    first = next(line for line in zh.splitlines() if line.startswith('"'))
    _write(tmp_path, en, zh + first + "\n")
    with pytest.raises(LocaleError, match=r"zh\.toml: not valid TOML.*written twice"):
        _load(tmp_path, "zh")
    with pytest.raises(LocaleError, match=r"zh\.toml"):  # loading English checks Chinese too
        _load(tmp_path, "en")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('"a.one" = 1\n', r"'a\.one' should be a string, not int"),
        ('a.one = "one"\n', r'a\.one is read as nested tables.*"a\.one" = '),
        ('[a]\n"one" = "one"\n', r"a\.one is read as nested tables"),
        ('"a.one" = "one\n', r"not valid TOML"),
    ],
)
def test_a_malformed_file_is_refused_naming_the_file(
    tmp_path: Path, text: str, message: str
) -> None:
    _write(tmp_path, text, '"a.one" = "一"\n')
    with pytest.raises(LocaleError, match=rf"en\.toml: .*{message}"):
        _load(tmp_path, "en")


def test_no_string_is_empty(tables: dict[str, Mapping[str, str]]) -> None:
    empty = [(lang, k) for lang, table in tables.items() for k, v in table.items() if not v.strip()]
    assert not empty


def test_placeholders_are_the_same_in_both_languages(
    tables: dict[str, Mapping[str, str]],
) -> None:
    en, zh = tables["en"], tables["zh"]
    differ = {
        k: (placeholders(en[k]), placeholders(zh[k]))
        for k in en
        if placeholders(en[k]) != placeholders(zh[k])
    }
    assert not differ


def test_the_chinese_file_is_chinese(tables: dict[str, Mapping[str, str]]) -> None:
    en, zh = tables["en"], tables["zh"]
    lettered = [k for k in en if re.search("[A-Za-z]", en[k])]
    without = {k for k in lettered if not CJK.search(zh[k])}
    share = 1 - len(without) / len(lettered)
    assert without == NO_CJK, f"{share:.1%} of the Chinese strings have CJK; without: {without}"


# ---- the files and the code ----------------------------------------------------------------


def test_every_key_is_used(tables: dict[str, Mapping[str, str]]) -> None:
    unused = set(tables["en"]) - _literals() - RUNTIME_KEYS - SITE.runtime_keys()
    assert unused - KNOWN_UNUSED == set(), "keys nothing uses; use them or delete them"
    assert KNOWN_UNUSED - unused == set(), "used or deleted now: take them off KNOWN_UNUSED"


def test_every_runtime_key_exists(tables: dict[str, Mapping[str, str]]) -> None:
    assert (RUNTIME_KEYS | SITE.runtime_keys()) - set(tables["en"]) == set()
    assert len(SITE.runtime_keys()) > 100, "the labs' declarations hold their runtime keys"


def test_every_key_the_code_names_exists(tables: dict[str, Mapping[str, str]]) -> None:
    named = _named_keys()
    assert len(named) > 200, "the scan found too few calls: has the source layout changed?"
    missing = {key: where for key, where in named.items() if key not in tables["en"]}
    assert not missing


# ---- the loader's API ----------------------------------------------------------------------


def test_tr_fills_placeholders_and_falls_back_to_english() -> None:
    assert tr("app.page.home", "zh") == "首页"
    assert tr("app.page.home", "fr") == tr("app.page.home") == "Home"
    assert tr("graph.legend.pass_one", "en", name="forward pass", n=1) == "forward pass: 1 node"
    with pytest.raises(KeyError):
        tr("no.such.key")


def test_error_text_translates_any_error_with_key_and_params() -> None:
    class Refused(ValueError):
        key, params = "budget.points", {"limit": 5, "got": 9}

    assert error_text(Refused(), "en") == "points: expected 1 to 5, got 9."
    assert "9" in error_text(Refused(), "zh")
    assert CJK.search(error_text(Refused(), "zh"))


def test_the_catalogue_is_read_only_and_loaded_once() -> None:
    table = catalogue("en")
    assert catalogue("en") is table
    with pytest.raises(TypeError):
        table["app.page.home"] = "changed"  # type: ignore[index]


def test_each_labs_strings_join_the_catalogue_and_a_key_twice_is_refused(tmp_path) -> None:
    shared, lab = tmp_path / "locales", tmp_path / "labs" / "demo"
    for folder, en, zh in ((shared, "a.one", "a.one"), (lab, "demo.two", "demo.two")):
        folder.mkdir(parents=True)
        (folder / "en.toml").write_text(f'"{en}" = "one"\n', encoding="utf-8")
        (folder / "zh.toml").write_text(f'"{zh}" = "一"\n', encoding="utf-8")
    assert lab_folders(tmp_path / "labs") == [lab]
    assert dict(_merged([shared, lab], "zh")) == {"a.one": "一", "demo.two": "一"}
    (lab / "en.toml").write_text('"a.one" = "again"\n', encoding="utf-8")
    (lab / "zh.toml").write_text('"a.one" = "又"\n', encoding="utf-8")
    with pytest.raises(LocaleError, match="defined in both"):
        _merged([shared, lab], "en")


def test_every_lab_folder_with_strings_is_in_the_catalogue() -> None:
    for folder in lab_folders():
        for lang in LANGUAGES:
            assert _load(folder, lang).keys() <= catalogue(lang).keys()
