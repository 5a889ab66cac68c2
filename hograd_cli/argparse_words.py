"""argparse's own words (its headings, its ``-h`` help, its error messages) in the command
line's language.

argparse marks every phrase it prints with gettext, ``_('...')``; :data:`ZH` is a catalogue of
those phrases as gettext has them, argparse's own msgid (English, its ``%`` placeholders
included) to the Chinese. English is argparse's text as it stands. The catalogue is read in two
ways: :func:`phrase` for a heading or a help line the command line asks for by its msgid, and
:func:`message` for an error message argparse has already put together in English, which it
takes apart again against the msgids and puts together in Chinese. No global state of argparse
or gettext is changed: only our parser (:class:`hograd_cli.lang.Parser`) calls these.

tests/project/test_cli_argparse.py reads argparse's source for its ``_()`` and ``ngettext()``
phrases and checks that each one is here, so a Python whose argparse says something new fails
that test rather than printing English.

Only the standard library is loaded, so that ``--help`` answers without torch.
"""

from __future__ import annotations

import functools
import re

__all__ = ["COLON", "ZH", "ZH_TYPES", "message", "phrase"]

#: argparse's msgids in Chinese: the same placeholders (a ``%(name)s`` may move; the one
#: unnamed ``%s`` or ``%r`` of a msgid stays unnamed). ``ngettext``'s two forms are both keys.
ZH: dict[str, str] = {
    # ---- help
    "usage: ": "用法：",
    "positional arguments": "位置参数",
    "options": "选项",
    "subcommands": "子命令",
    "show this help message and exit": "显示本帮助并退出",
    # ---- the command line is wrong (what a user can see)
    "%(prog)s: error: %(message)s\n": "%(prog)s：错误：%(message)s\n",
    "argument %(argument_name)s: %(message)s": "参数 %(argument_name)s：%(message)s",
    "the following arguments are required: %s": "缺少必需的参数：%s",
    "one of the arguments %s is required": "参数 %s 中必须给出一个",
    "unrecognized arguments: %s": "无法识别的参数：%s",
    "not allowed with argument %s": "不能与参数 %s 同时使用",
    "ignored explicit argument %r": "这个选项不带值，却给了 %r",
    "expected one argument": "后面需要跟一个值",
    "expected at most one argument": "后面最多只能跟一个值",
    "expected at least one argument": "后面至少要跟一个值",
    "expected %s argument": "后面需要跟 %s 个值",
    "expected %s arguments": "后面需要跟 %s 个值",
    "ambiguous option: %(option)s could match %(matches)s": (
        "选项 %(option)s 有歧义，可能指 %(matches)s 中的任何一个"
    ),
    "unexpected option string: %s": "这里不应出现选项 %s",
    "invalid %(type)s value: %(value)r": "%(value)r 不是有效的%(type)s",
    "invalid choice: %(value)r (choose from %(choices)s)": (
        "%(value)r 不是可选的值，可选的有 %(choices)s"
    ),
    "unknown parser %(parser_name)r (choices: %(choices)s)": (
        "没有名为 %(parser_name)r 的子命令（可选的有 %(choices)s）"
    ),
    "can't open '%(filename)s': %(error)s": "无法打开 '%(filename)s'：%(error)s",
    'argument "-" with mode %r': "“-”（标准输入或输出）不能以模式 %r 打开",
    # ---- the parser is built wrong (a programmer's mistake, raised while it is built)
    ".__call__() not defined": "没有定义 .__call__()",
    "%r is not callable": "%r 不是可调用的对象",
    "conflicting subparser: %s": "子命令重名：%s",
    "conflicting subparser alias: %s": "子命令的别名重名：%s",
    "cannot merge actions - two groups are named %r": "无法合并参数：有两个组都叫 %r",
    "'required' is an invalid argument for positionals": "位置参数不能使用 required",
    "invalid option string %(option)r: must start with a character %(prefix_chars)r": (
        "选项字符串 %(option)r 无效：必须以 %(prefix_chars)r 中的字符开头"
    ),
    "dest= is required for options like %r": "像 %r 这样的选项必须给出 dest=",
    "invalid conflict_resolution value: %r": "conflict_resolution 的值无效：%r",
    "conflicting option string: %s": "选项字符串冲突：%s",
    "conflicting option strings: %s": "选项字符串冲突：%s",
    "mutually exclusive arguments must be optional": "互斥组里只能放选项，不能放位置参数",
    "cannot have multiple subparser arguments": "一个解析器只能有一组子命令",
}

#: ``%(type)s`` of "invalid %(type)s value" is the name of the function that converts the
#: value (``int``, ``float``); the Chinese says what the value should have been.
ZH_TYPES: dict[str, str] = {"int": "整数", "float": "数"}

#: What ends a section heading (argparse writes ``heading:``).
COLON: dict[str, str] = {"en": ":", "zh": "："}

_SPEC = re.compile(r"%(?:\((\w+)\))?[sdr]")  # a placeholder: %s, %r, %(name)s, %(name)r
_UNNAMED = "_"  # the group of a msgid's one unnamed placeholder


def phrase(msgid: str, lang: str) -> str:
    """argparse's phrase ``msgid`` in ``lang`` (English: the msgid itself)."""
    return ZH[msgid] if lang == "zh" else msgid


def _pattern(msgid: str) -> re.Pattern[str]:
    """A pattern that matches the messages made from ``msgid``, its placeholders as groups
    (``_`` for the unnamed one)."""
    parts, start = [], 0
    for spec in _SPEC.finditer(msgid):
        parts += [re.escape(msgid[start : spec.start()]), f"(?P<{spec.group(1) or _UNNAMED}>.*?)"]
        start = spec.end()
    return re.compile("".join([*parts, re.escape(msgid[start:])]), re.S)


@functools.cache
def _patterns() -> tuple[tuple[re.Pattern[str], str], ...]:
    """Every msgid's pattern: phrases without placeholders first, then the most literal text
    first, so that "expected one argument" is not read as "expected %s argument"."""
    order = sorted(ZH, key=lambda msgid: (bool(_SPEC.search(msgid)), -len(_SPEC.sub("", msgid))))
    return tuple((_pattern(msgid), msgid) for msgid in order)


def message(text: str, lang: str) -> str:
    """An error message argparse put together (in English), in ``lang``: matched against the
    msgids, its values kept as they are and the message inside "argument X: ..." translated
    too. A message that no msgid makes (a type function's own ArgumentTypeError) is returned
    as it is."""
    if lang != "zh":
        return text
    for pattern, msgid in _patterns():
        found = pattern.fullmatch(text)
        if found is None:
            continue
        values = found.groupdict()
        if "message" in values:
            values["message"] = message(values["message"], lang)
        if "type" in values:  # "有效的整数"; a type of our own: "有效的 foo 值"
            values["type"] = ZH_TYPES.get(values["type"], f" {values['type']} 值")
        return _fill(ZH[msgid], values)
    return text


def _fill(template: str, values: dict[str, str]) -> str:
    """``template``'s placeholders replaced by ``values`` (text already: a ``%r``'s value is
    the quoted text argparse wrote)."""
    return _SPEC.sub(lambda spec: values[spec.group(1) or _UNNAMED], template)
