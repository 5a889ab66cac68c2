"""The README's pictures are the ones docs/screenshots.py makes: every picture it shows exists,
has a description, and is one of the script's shots, and every shot is shown."""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "docs"))

from screenshots import OUT, SHOTS  # noqa: E402

IMAGE = re.compile(r"!\[(?P<alt>[^\]]*)\]\((?P<path>docs/screenshots/[^)]+)\)")


def _images() -> list[re.Match]:
    return list(IMAGE.finditer((ROOT / "README.md").read_text(encoding="utf-8")))


def test_every_picture_in_the_readme_is_a_shot_and_exists() -> None:
    images = _images()
    assert images
    shots = {f"docs/screenshots/{s.name}.png" for s in SHOTS}
    for m in images:
        assert m["path"] in shots, f"{m['path']} is not made by docs/screenshots.py"
        assert (ROOT / m["path"]).is_file(), m["path"]
        assert len(m["alt"]) > 40, f"{m['path']}: a description says what the picture shows"


def test_every_shot_is_in_the_readme_and_nothing_else_is_in_the_folder() -> None:
    shown = {m["path"] for m in _images()}
    assert {f"docs/screenshots/{s.name}.png" for s in SHOTS} == shown
    assert {p.name for p in OUT.glob("*.png")} == {f"{s.name}.png" for s in SHOTS}
    assert OUT == ROOT / "docs" / "screenshots"
