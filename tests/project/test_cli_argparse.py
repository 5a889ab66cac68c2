"""argparse's own words in the command line's language: its headings, its ``-h`` help and every
error it makes come out in Chinese under ``--lang zh`` and as argparse wrote them in English;
Chinese help fits the terminal by display width; every verb the command line takes is listed.

The phrases are argparse's own catalogue, read from its source (each ``_('...')`` and
``ngettext('...', '...', n)``), not a list written here; the widths are measured with wcwidth
(brought by ipykernel's prompt_toolkit), not with the command line's own function."""

from __future__ import annotations

import argparse
import ast
import inspect
import json
import re

import pytest
import wcwidth

from hograd_cli.__main__ import VERBS, _build_parser
from hograd_cli.argparse_words import ZH, message
from hograd_cli.lang import wrap
from tests.project.test_cli_help import _imports_torch
from tests.project.test_cli_lang import CJK, cli
from tests.ui.test_zh_spacing import STRAY

SPEC = re.compile(r"%(?:\((\w+)\))?[sdr]")  # a placeholder; its group: the name
BARE_SPEC = re.compile(r"%(?:\(\w+\))?[sdr]")  # the same, to split at (no group)


def argparse_msgids() -> set[str]:
    """Every phrase argparse marks for translation: the string arguments of its ``_()`` and
    ``ngettext()`` calls, and the default of ``_(kwargs.pop('title', 'subcommands'))``."""
    found = set()
    for node in ast.walk(ast.parse(inspect.getsource(argparse))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        if node.func.id not in ("_", "ngettext"):
            continue
        for arg in node.args[: 2 if node.func.id == "ngettext" else 1]:
            if isinstance(arg, ast.Call) and len(arg.args) == 2:  # kwargs.pop(key, default)
                arg = arg.args[1]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                found.add(arg.value)
    return found


MSGIDS = argparse_msgids()
#: The English of the msgids, without their placeholders: "invalid choice", "usage:", ...
FRAGMENTS = sorted(
    {
        piece.strip()
        for msgid in MSGIDS
        for piece in BARE_SPEC.split(msgid)
        if piece and re.search("[A-Za-z]{2}", piece)
    }
)


def _english_left(text: str) -> list[str]:
    return [f for f in FRAGMENTS if f in text]


def test_the_catalogue_is_read_from_argparse() -> None:  # the scan can fail
    assert len(MSGIDS) > 30
    assert {"usage: ", "subcommands", "expected %s arguments", "unrecognized arguments: %s"} <= (
        MSGIDS
    )
    assert "invalid choice:" in FRAGMENTS and "usage:" in FRAGMENTS


def test_every_argparse_phrase_has_its_chinese() -> None:
    assert set(ZH) == MSGIDS, (sorted(MSGIDS - set(ZH)), sorted(set(ZH) - MSGIDS))
    for msgid, zh in ZH.items():
        named = sorted(n for n in SPEC.findall(msgid) if n)
        assert named == sorted(n for n in SPEC.findall(zh) if n), msgid
        assert len(SPEC.findall(msgid)) == len(SPEC.findall(zh)), msgid
        assert SPEC.findall(msgid).count("") <= 1, msgid  # one unnamed placeholder at most
        words = BARE_SPEC.sub("", zh)  # a placeholder is named in English
        assert CJK.search(zh) and not STRAY.search(zh) and not _english_left(words), (msgid, zh)


# ---- help --------------------------------------------------------------------------------

HELPS = [(), *((verb,) for verb in VERBS)]


@pytest.mark.parametrize("verb", HELPS, ids=lambda v: v[0] if v else "top")
def test_help_in_chinese_has_no_argparse_english(verb: tuple[str, ...]) -> None:
    en = cli(*verb, "--help", COLUMNS="80")
    assert en.returncode == 0 and "usage:" in en.stdout  # the check can fail
    assert [line for line in en.stdout.splitlines() if len(line) > 80] == []
    zh = cli("--lang", "zh", *verb, "--help", COLUMNS="80")
    assert zh.returncode == 0 and zh.stderr == ""
    assert not _english_left(zh.stdout), _english_left(zh.stdout)
    assert zh.stdout.startswith("用法：") and "\n选项：\n" in zh.stdout
    widths = [wcwidth.wcswidth(line) for line in zh.stdout.splitlines()]
    assert max(widths) <= 80, [
        line for line in zh.stdout.splitlines() if wcwidth.wcswidth(line) > 80
    ]


def test_the_usage_lines_up_under_a_wide_lead() -> None:
    text = cli("--lang", "zh", "hvp", "--help", COLUMNS="80").stdout
    first, second = text.splitlines()[:2]
    column = wcwidth.wcswidth(first[: first.index("[-h]")])  # where the arguments start
    assert second.startswith(" " * column + "[")


def test_english_help_is_argparse_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """In English each parser's help is what argparse's own formatter class writes for it,
    except a usage that argparse lets run past the width (a mutually exclusive group kept
    whole under a wide lead): the same words then, in the same order, within 80 columns."""
    monkeypatch.setenv("COLUMNS", "80")
    top = _build_parser("en")
    (sub,) = (a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    stock = {top: argparse.RawDescriptionHelpFormatter}
    stock |= {p: argparse.HelpFormatter for p in sub.choices.values()}
    laid_out_again = []
    for parser, formatter_class in stock.items():
        ours = parser.format_help()
        parser.formatter_class = formatter_class
        theirs = parser.format_help()
        usage, _, rest = theirs.partition("\n\n")
        if all(len(line) <= 80 for line in usage.splitlines()):
            assert ours == theirs, parser.prog
            continue
        laid_out_again.append(parser.prog)
        our_usage, _, our_rest = ours.partition("\n\n")
        assert our_rest == rest and our_usage.split() == usage.split(), parser.prog
        assert max(len(line) for line in our_usage.splitlines()) <= 80, our_usage
    assert laid_out_again == ["python -m hograd_cli custom"]  # the check can fail


def test_every_verb_is_listed_in_both_languages() -> None:
    """The verbs listed under VERB are the verbs the command line takes (an unknown one is
    refused with the list), each with a line of its own words."""
    taken = cli("no-such-verb").stderr
    choices = re.findall(r"'([a-z]+)'", taken.split("choose from")[1])
    assert choices == list(VERBS) and "run" in choices
    for lang, words in (("en", re.compile("[a-z]{3}")), ("zh", CJK)):
        text = cli("--lang", lang, "--help").stdout
        listed = re.findall(r"^ {4}(\S+) +(.+)$", text, re.M)
        assert [name for name, _ in listed] == choices
        assert all(words.search(line) for _, line in listed), listed


def test_run_help_loads_no_torch() -> None:
    for lang in ("en", "zh"):
        code, torch_loaded, text = _imports_torch("--lang", lang, "run", "--help")
        assert code == 0 and "--json" in text and not torch_loaded


# ---- errors ------------------------------------------------------------------------------

#: Usage errors: the arguments, argparse's msgid and its values, and what the Chinese keeps.
ERRORS = {
    "missing positional": (
        ("derivatives",),
        "the following arguments are required: %s",
        "function",
    ),
    "missing option": (("hvp", "x"), "the following arguments are required: %s", "--at"),
    "missing verb": ((), "the following arguments are required: %s", "VERB"),
    "run without file": (("run",), "the following arguments are required: %s", "file"),
    "unknown option": (("derivatives", "x", "--bogus"), "unrecognized arguments: %s", "--bogus"),
    "bad choice": (
        ("derivatives", "x", "--method", "foo"),
        "argument %(argument_name)s: %(message)s",
        {
            "argument_name": "--method",
            "message": "invalid choice: 'foo' (choose from "
            "'autograd', 'taylor', 'jvp', 'forward_ad')",
        },
    ),
    "bad number": (
        ("hvp", "x", "--at", "1", "--seed", "1.5"),
        "argument %(argument_name)s: %(message)s",
        {"argument_name": "--seed", "message": "invalid int value: '1.5'"},
    ),
    "missing value": (
        ("graph", "x", "--order"),
        "argument %(argument_name)s: %(message)s",
        {"argument_name": "--order", "message": "expected one argument"},
    ),
    "two of a group": (
        ("derivatives", "x", "--at", "1", "--grid", "0:1:3"),
        "argument %(argument_name)s: %(message)s",
        {"argument_name": "--grid", "message": "not allowed with argument --at"},
    ),
    "ambiguous": (
        ("graph", "x", "--s"),
        "ambiguous option: %(option)s could match %(matches)s",
        {"option": "--s", "matches": "--saved, --svg, --steps"},
    ),
    "value to a flag": (
        ("derivatives", "x", "--json=3"),
        "argument %(argument_name)s: %(message)s",
        {"argument_name": "--json", "message": "ignored explicit argument '3'"},
    ),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_a_usage_error_is_argparse_english_or_all_chinese(case: str) -> None:
    args, msgid, values = ERRORS[case]
    assert msgid in MSGIDS
    en = cli(*args)
    assert (en.returncode, en.stdout) == (2, "")
    assert en.stderr == f"error: {msgid % values}\n"  # argparse's words, as before
    for zh in (cli("--lang", "zh", *args), cli(*args, LANG="zh_CN.UTF-8")):
        assert zh.returncode == 2 and "Traceback" not in zh.stderr
        (line,) = zh.stderr.splitlines()
        assert line.startswith("错误：") and CJK.search(line[3:])
        assert not _english_left(line), (line, _english_left(line))
        kept = (
            [values]
            if isinstance(values, str)
            else [
                *(v for k, v in values.items() if k != "message"),
                *re.findall(r"'[^']*'|--[a-z-]+", values.get("message", "")),
            ]
        )
        assert all(value in line for value in kept), (kept, line)  # the values stay as given


def test_a_json_usage_error_is_chinese_too() -> None:
    zh = cli("--lang", "zh", "derivatives", "x", "--order", "abc", "--json")
    assert zh.returncode == 2
    error = json.loads(zh.stdout)["error"]
    assert "'abc'" in error and CJK.search(error) and not _english_left(error + zh.stderr)


def test_every_argparse_error_message_comes_out_in_chinese() -> None:
    """Each msgid filled with sample values (as argparse fills it) is taken apart again and
    said in Chinese; English is left as it is."""
    for msgid in MSGIDS:
        names = SPEC.findall(msgid)
        sample = {n or "_": f"'v{i}'" for i, n in enumerate(names)}
        sample |= {"message": "expected one argument"} if "message" in sample else {}
        text = msgid % (sample if any(names) else tuple(sample.values()))
        assert message(text, "en") == text
        zh = message(text, "zh")
        assert CJK.search(zh) and not _english_left(zh), (text, zh)
        assert all(v in zh for k, v in sample.items() if k != "message"), (text, zh)


# ---- wrapping ----------------------------------------------------------------------------

LONG = (
    "帮助、表格和消息的语言：en 或 zh（不给时依次看 HOGRAD_LANG，再看区域设置 LC_ALL、"
    "LC_MESSAGES 或 LANG：以 zh 开头则用中文，否则用英文）"
)


@pytest.mark.parametrize("width", [14, 20, 37, 56])  # 13: "HOGRAD_LANG，", kept whole
def test_wrap_by_display_width(width: int) -> None:
    import textwrap

    assert any(wcwidth.wcswidth(line) > width for line in textwrap.wrap(LONG, width))
    lines = wrap(LONG, width)
    assert all(wcwidth.wcswidth(line) <= width for line in lines), lines
    assert re.sub(" ", "", "".join(lines)) == re.sub(" ", "", LONG)  # nothing lost
    assert not any(line[0] in "，。、：）" or line[-1] == "（" for line in lines), lines
    assert "HOGRAD_LANG，" in "\n".join(lines)  # a word and its comma stay together


def test_wrap_cuts_a_piece_wider_than_the_line() -> None:
    lines = wrap("看 LC_ALL、LC_MESSAGES_OR_LANG，再", 11)
    assert lines == ["看 LC_ALL、", "LC_MESSAGES", "_OR_LANG，", "再"]
