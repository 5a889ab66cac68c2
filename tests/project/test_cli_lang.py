"""The command line speaks English and Simplified Chinese: ``--lang``, else HOGRAD_LANG, else
the locale (LC_ALL, LC_MESSAGES, LANG); its help, tables and errors follow the language, and
its JSON keeps every key and machine value, only the human messages change.

The calls run in this process with the environment given (tests/project/cli_inprocess.py):
the command line reads its language from ``os.environ``. A process of its own runs the top
help under a Chinese locale and a JSON error in Chinese (what a terminal gets from a real
process's streams), and the probe that torch is not loaded.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable

import pytest

from hograd_ui.i18n import catalogue, placeholders
from tests.project.cli_inprocess import cli_process, run_cli
from tests.project.test_cli_help import _imports_torch

CJK = re.compile(r"[\u4e00-\u9fff]")
LOCALE_VARS = ("HOGRAD_LANG", "LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")


def _environment(env: dict[str, str]) -> dict[str, str]:
    """This process's environment with its language settings replaced by ``env``."""
    clean = {k: v for k, v in os.environ.items() if k not in LOCALE_VARS}
    return {**clean, **env}


def cli(*args: str, stdin: str = "", **env: str) -> subprocess.CompletedProcess:
    """The command line (in this process) whose language settings are only ``env``."""
    return run_cli(*args, stdin=stdin, env=_environment(env))


def process(*args: str, **env: str) -> subprocess.CompletedProcess:
    """The same in a fresh process of its own."""
    return cli_process(*args, env=_environment(env))


VERBS = (None, "derivatives", "hvp", "graph", "gradcheck", "custom", "decode", "run")

#: One bad input per verb, and a word of its English message (which the Chinese lacks).
BAD = {
    "derivatives": (("derivatives", "x**", "--at", "1"), "function:"),
    "hvp": (("hvp", "x*y", "--at", "1,2", "--vector", "1"), "expected 2 numbers"),
    "graph": (("graph", "foo(x)"), "not a known function"),
    "gradcheck": (("gradcheck", "sin(x)", "--at", "abc"), "is not a number"),
    "custom": (("custom", "tanh(x)", "--backward", "q*g", "--at", "-1:1:3"), "column"),
    "decode": (("decode", "/nonexistent/error.txt"), "readable file"),
    "run": (("run", "/nonexistent/prog.py"), "No such file"),
    "usage": (("frobnicate",), "invalid choice"),
    "grid": (("derivatives", "x", "--grid", "0:1"), "START:STOP:POINTS such as"),
}


def _help(
    verb: str | None,
    *lang: str,
    run: Callable[..., subprocess.CompletedProcess] = cli,
    **env: str,
) -> str:
    args = ("--help",) if verb is None else (verb, "--help")
    out = run(*lang, *args, **env)
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.mark.parametrize("verb", VERBS, ids=str)
def test_help_in_chinese_with_lang_or_locale(verb: str | None) -> None:
    english = _help(verb)
    assert not CJK.search(english) and "show this help message" in english
    # the top help under a Chinese locale in a process of its own: the language from a real
    # process's environment, its help written by a real interpreter's stdout, exit status 0
    by_locale = _help(verb, LANG="zh_CN.UTF-8", run=process if verb is None else cli)
    for text in (_help(verb, "--lang", "zh"), by_locale):
        assert text.startswith("用法：")
        assert "show this help message" not in text and "print one JSON object" not in text
        # every option's help line is Chinese (the option names and examples are code)
        helps = [line for line in text.splitlines() if line.startswith("  -")]
        assert helps and all(CJK.search(h) for h in helps if "  " in h.strip()), helps
    if verb is None:
        zh = _help(None, "--lang", "zh")
        assert "示例" in zh and "--lang {en,zh}" in zh


@pytest.mark.parametrize("case", list(BAD))
def test_a_bad_input_is_one_chinese_line(case: str) -> None:
    args, english_word = BAD[case]
    en = cli(*args)
    assert en.returncode == 2 and english_word in en.stderr and en.stderr.startswith("error: ")
    for out in (cli("--lang", "zh", *args), cli(*args, LANG="zh_CN.UTF-8")):
        assert out.returncode == 2 and "Traceback" not in out.stderr
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("错误：") and CJK.search(lines[0][3:])
        if case != "run":  # the OS's own words stay English (argparse's do not)
            assert english_word not in lines[0]


@pytest.mark.parametrize(
    ("env", "lang", "chinese"),
    [
        ({"LC_ALL": "C.UTF-8", "LANG": "zh_CN.UTF-8"}, (), False),  # LC_ALL comes first
        ({"LC_MESSAGES": "zh_TW.UTF-8", "LANG": "en_GB.UTF-8"}, (), True),
        ({"HOGRAD_LANG": "en", "LANG": "zh_CN.UTF-8"}, (), False),
        ({"LANG": "zh_CN.UTF-8"}, ("--lang", "en"), False),
        ({"HOGRAD_LANG": "zh"}, ("--lang=en",), False),
        ({"HOGRAD_LANG": "zh", "LANG": "en_US.UTF-8"}, (), True),
        ({}, ("--lang=zh",), True),
        ({}, ("--lang", "zh"), True),  # after the verb too
    ],
)
def test_which_language_wins(env: dict, lang: tuple, chinese: bool) -> None:
    out = cli("derivatives", "x**", *lang, "--at", "1", **env)
    assert out.returncode == 2
    assert out.stderr.startswith("错误：" if chinese else "error: "), out.stderr


def test_an_unknown_language_is_a_usage_error() -> None:
    out = cli("--lang", "fr", "derivatives", "x", "--at", "1")
    assert out.returncode == 2 and "--lang" in out.stderr and "fr" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_help_does_not_load_torch_in_chinese() -> None:
    for args in (("--lang", "zh", "--help"), ("--lang", "zh", "hvp", "--help")):
        code, torch_loaded, text = _imports_torch(*args)
        assert code == 0 and "用法" in text and not torch_loaded


def test_every_cli_key_is_in_both_languages_with_the_same_placeholders() -> None:
    en, zh = catalogue("en"), catalogue("zh")
    keys = {k for k in en if k.startswith("cli.")}
    assert len(keys) > 60 and keys == {k for k in zh if k.startswith("cli.")}
    for key in keys:
        assert placeholders(en[key]) == placeholders(zh[key]), key
        assert CJK.search(zh[key]), key


# ---- the tables a human reads --------------------------------------------------------------

TABLES = [
    ("derivatives", "x**3", "--order", "3", "--at", "2"),
    ("derivatives", "tanh(x)", "--order", "2", "--grid", "-1:1:5"),
    ("derivatives", "i0(x)", "--order", "4", "--at", "0.5"),
    ("derivatives", "sin(x)", "--order", "2", "--at", "0.7", "--method", "jvp", "--costs"),
    ("hvp", "w1**2*sin(w2)", "--at", "1,1.5707963267948966", "--vector", "0.5,1", "--diagonal"),
    ("hvp", "x^2*y + z^3", "--at", "1,2,0.5", "--diagonal", "--hutchinson", "10"),
    ("gradcheck", "sin(x)", "--at", "-1:1:3"),
    ("custom", "tanh(x)", "--backward", "(1 - y^2)*g", "--at", "-2:2:5"),
]

DECIMAL = re.compile(r"-?\d+\.\d+(?:e[+-]?\d+)?|-?\d+e[+-]?\d+")


@pytest.mark.parametrize("args", TABLES, ids=lambda a: f"{a[0]}-{a[1]}")
def test_tables_in_chinese_hold_the_same_numbers(args: tuple[str, ...]) -> None:
    en, zh = cli(*args), cli("--lang", "zh", *args)
    assert en.returncode == zh.returncode == 0, zh.stderr
    en_lines, zh_lines = en.stdout.splitlines(), zh.stdout.splitlines()
    assert len(en_lines) == len(zh_lines)
    worded = [line for line in en_lines if re.search("[a-z]{4,}", line.replace(args[1], ""))]
    assert worded  # the check can fail: some lines have words
    for e, z in zip(en_lines, zh_lines, strict=True):
        if e in worded:
            assert CJK.search(z), (e, z)
        measured = "ms of computing" in e or e.strip()[:1].isdigit()  # timing line, costs rows
        if not measured:  # measured seconds differ from run to run
            found = set(DECIMAL.findall(e.replace(args[1], "")))
            assert found == set(DECIMAL.findall(z.replace(args[1], ""))), (e, z)


def test_decode_in_chinese_keeps_its_json_but_the_words() -> None:
    text = "RuntimeError: Function 'DivBackward0' returned nan values in its 1th output."
    en = json.loads(cli("decode", "-", "--json", stdin=text).stdout)
    zh = json.loads(cli("--lang", "zh", "decode", "-", "--json", stdin=text).stdout)
    words = ("title", "why", "fix")
    assert {k: v for k, v in en.items() if k not in words} == {
        k: v for k, v in zh.items() if k not in words
    }
    assert all(CJK.search(zh[k]) and not CJK.search(en[k]) for k in words)
    human = cli("--lang", "zh", "decode", "-", stdin=text).stdout
    assert human.startswith("nan_div：") and "完全匹配" in human


# ---- JSON: the same bytes ------------------------------------------------------------------

JSON_CALLS = [
    ("derivatives", "x^3", "--at", "2", "--order", "2", "--json"),
    ("derivatives", "i0(x)", "--order", "4", "--grid", "-0.5:0.5:5", "--json"),
    ("hvp", "w1**2*sin(w2)", "--at", "1,1.5707963267948966", "--vector", "0.5,1", "--json"),
    ("gradcheck", "sin(x)", "--at", "-1:1:3", "--json"),
    ("custom", "tanh(x)", "--backward", "(1 - y^2)*g", "--at", "-2:2:5", "--json"),
]
TIMES = re.compile(r'"(startup_)?seconds": [0-9.e+-]+')


@pytest.mark.parametrize("args", JSON_CALLS, ids=lambda a: a[0])
def test_json_is_the_same_bytes_in_both_languages(args: tuple[str, ...]) -> None:
    en, zh = cli(*args), cli("--lang", "zh", *args, LANG="zh_CN.UTF-8")
    assert en.returncode == zh.returncode == 0, zh.stderr
    assert TIMES.sub("", en.stdout) == TIMES.sub("", zh.stdout)
    assert TIMES.search(en.stdout)  # the masking found what it hides


def test_a_json_error_has_the_same_key_and_a_chinese_message() -> None:
    # Chinese in a process of its own: what a real process writes to its two streams (the
    # English in one: tests/project/test_cli.py::test_bad_input_json_error_object)
    args = ("derivatives", "sin(x", "--at", "1", "--json")
    en, zh = cli(*args), process("--lang", "zh", *args)
    assert en.returncode == zh.returncode == 2
    assert json.loads(en.stdout) == {
        "error": "function: the '(' at column 4 is never closed; add a ')'."
    }
    message = json.loads(zh.stdout)
    assert list(message) == ["error"] and CJK.search(message["error"])
    assert zh.stderr == f"错误：{message['error']}\n", zh.stderr
