"""Chinese text has no space between two Chinese characters (or a Chinese character and
Chinese punctuation). Such a space is almost always a TOML line continuation written with a
space before the backslash: ``"更高阶 \\`` + newline joins to "更高阶 是"."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ZH_FILES = sorted([ROOT / "locales" / "zh.toml", *(ROOT / "hograd_labs").glob("*/zh.toml")])

HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
PUNCT = "\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65"  # 。，、：；（）「」…
CJK = f"[{HAN}{PUNCT}]"
# a space with Chinese on both sides, at least one side a Han character
STRAY = re.compile(f"(?:[{HAN}][ \t\u00a0]+{CJK}|{CJK}[ \t\u00a0]+[{HAN}])")


def _strings(value: object, key: str = "") -> list[tuple[str, str]]:
    if isinstance(value, dict):
        return [kv for k, v in value.items() for kv in _strings(v, f"{key}.{k}" if key else k)]
    return [(key, value)] if isinstance(value, str) else []


def test_the_files_are_found() -> None:
    assert ROOT / "locales" / "zh.toml" in ZH_FILES
    assert len(ZH_FILES) >= 10  # every lab with strings has its zh.toml


def test_the_pattern_finds_a_continuation_space() -> None:
    joined = tomllib.loads('a = """\\\n更高阶 \\\n是截断的级数"""')["a"]
    assert STRAY.search(joined)
    assert not STRAY.search("更高阶是 `x` 的 y：f′(0) = 0，abs(x)*x 在 0 处")


@pytest.mark.parametrize("path", ZH_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_space_between_chinese_characters(path: Path) -> None:
    table = tomllib.loads(path.read_text(encoding="utf-8"))
    hits = [
        f"{key}: …{s[max(0, m.start() - 6) : m.end() + 6]}…"
        for key, s in _strings(table)
        for m in STRAY.finditer(s)
    ]
    assert not hits, "\n".join(hits)
