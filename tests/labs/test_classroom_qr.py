"""The class's QR code: the drawing holds the modules of the student link's code, and the link
it encodes is the student link (the class, the language; never the teacher's key).

The drawing is read back from the SVG (its one path: a run of dark modules per ``h``), not
decoded as a phone would; the modules are compared with segno's matrix of the link and with
what the QR standard fixes whatever the data (the three finder patterns, the size)."""

from __future__ import annotations

import base64
import re

import pytest
import segno

from hograd_labs.classroom.figures import QR_BORDER, qr_svg

LINK = "http://127.0.0.1:8501/lesson?class=K7M2QX&lang=zh"

#: A finder pattern (ISO/IEC 18004, 6.3.3): 7x7, a dark ring, a light ring, a dark 3x3 core.
FINDER = [[1 if max(abs(r - 3), abs(c - 3)) != 2 else 0 for c in range(7)] for r in range(7)]


def modules(svg: str) -> list[list[int]]:
    """The dark modules an SVG of :func:`qr_svg` draws, as rows of 0/1 (the quiet zone cut)."""
    size = int(re.search(r'viewBox="0 0 (\d+) \1"', svg).group(1))
    grid = [[0] * size for _ in range(size)]
    path = re.search(r'class="qrline"[^>]* d="([^"]+)"', svg).group(1)  # the dark modules
    x = y = 0.0
    for op, a, b in re.findall(r"([MmHh])(-?[\d.]+)(?:[ ,](-?[\d.]+))?", path):
        if op == "M":
            x, y = float(a), float(b)
        elif op == "m":
            x, y = x + float(a), y + float(b)
        else:  # a horizontal line through the middle of row y - 0.5, one module high
            run = float(a)
            for col in range(int(x), int(x + run)):
                grid[int(y - 0.5)][col] = 1
            x += run
    inner = size - 2 * QR_BORDER
    return [row[QR_BORDER : QR_BORDER + inner] for row in grid[QR_BORDER : QR_BORDER + inner]]


def _corner(grid: list[list[int]], top: int, left: int) -> list[list[int]]:
    return [row[left : left + 7] for row in grid[top : top + 7]]


@pytest.mark.parametrize("link", [LINK, "https://hograd.example/lesson?class=AB23CD&lang=en"])
def test_the_drawing_holds_the_links_modules(link: str) -> None:
    drawn = modules(qr_svg(link))
    code = segno.make(link, error="m", boost_error=False)
    assert drawn == [list(map(int, row)) for row in code.matrix]
    n = len(drawn)
    assert n == 17 + 4 * code.version  # the size the standard gives a version
    for top, left in ((0, 0), (0, n - 7), (n - 7, 0)):
        assert _corner(drawn, top, left) == FINDER
    assert _corner(drawn, n - 7, n - 7) != FINDER  # the fourth corner has none


def test_the_svg_holds_no_text_of_the_link() -> None:
    svg = qr_svg(LINK + "&x=<script>")
    assert "K7M2QX" not in svg and "lesson" not in svg and "<script" not in svg
    assert "<text" not in svg


def test_the_lecturer_sees_the_student_links_code(tmp_path, monkeypatch) -> None:
    from hograd_labs.classroom import page as room
    from tests.app.test_classroom_page import KEY
    from tests.app.test_lesson_page import open_lesson

    monkeypatch.setenv("HOGRAD_CLASSROOM_URL", f"sqlite:///{tmp_path / 'c.sqlite'}")
    monkeypatch.setenv("HOGRAD_TEACHER_KEY", KEY)
    teacher = open_lesson("en", key=KEY)
    assert not teacher.get("image")  # no class yet, no code
    teacher.button(key="classroom.open").click().run()
    code = teacher.session_state[room.CODE]
    [link] = [c.value for c in teacher.code if f"class={code}" in c.value]
    assert KEY not in link and "key=" not in link and "teacher" not in link
    [image] = teacher.get("image")
    url = image.proto.imgs[0].url
    prefix = "data:image/svg+xml;base64,"
    assert url.startswith(prefix)
    svg = base64.b64decode(url[len(prefix) :]).decode()
    wanted = segno.make(link, error="m", boost_error=False).matrix
    assert modules(svg) == [list(map(int, row)) for row in wanted]
