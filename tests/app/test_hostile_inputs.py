"""Every text box of every page, fed more than 120 bad inputs: no exception, a clear error,
the text echoed only as code, and nothing executed (an audit-hook tripwire)."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import pytest

from hograd_core import ExpressionError, parse
from tests.app.conftest import open_page, routes
from tests.core.test_language import HOSTILE, NAMED_ERRORS

CANARY = Path(f"/tmp/hograd-canary-{uuid.uuid4().hex}")
INJECTIONS = [
    f"__import__('os').system('touch {CANARY}')",
    f"open('{CANARY}', 'w').write('x')",
    f"exec(\"open('{CANARY}','w')\")",
    f'sympify(\'__import__("os").system("touch {CANARY}")\')',
]
BAD = [text for text in HOSTILE + [t for t, _ in NAMED_ERRORS] + INJECTIONS if len(text) <= 400]


def _parses(text: str) -> bool:
    try:
        parse(text)
    except ExpressionError:
        return False
    return True


# Inputs that are in fact valid formulas (names read as variables, a tower of powers): a page
# may accept them, so for these only "no exception, nothing executed" is required.
ACCEPTED = {text for text in BAD if _parses(text)}

_EVENTS: list[str] = []
_ARMED = [False]
_WATCHED = (
    "os.system",
    "subprocess.Popen",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.fork",
    "socket.connect",
    "ctypes.dlopen",
    "os.remove",
    "shutil.rmtree",
    "pty.spawn",
)


#: The one process a page may start: the exact column's child (hograd_serving/sympy_column.py),
#: a fixed module of ours, given the typed text on its standard input, never on its command line.
_OURS = ("hograd_serving.exact_child",)


def _hook(event: str, args: tuple) -> None:
    if not (_ARMED[0] and event.startswith(_WATCHED)):
        return
    if event == "subprocess.Popen" and any(
        str(a) in _OURS for a in (args[1] if len(args) > 1 and args[1] else ())
    ):
        return
    _EVENTS.append(event)


sys.addaudithook(_hook)

# home and the memory lab (sliders only) have no text box; the lesson's first step has its
# answer box (its link is checked in tests/app/test_lesson_page.py); the code page's box holds a
# program, not a formula (its hostile programs: tests/core/test_program_hostile.py and
# tests/app/test_code_page.py)
NO_FORMULA = ("pages/home.py", "pages/memory.py", "pages/code.py")
PAGES = [path for path, _ in routes() if path not in NO_FORMULA]
#: boxes that take numbers, not formulas (hograd_core.typed_numbers): the lesson's answers and
#: the exact entries beside sliders; they say what is wrong with the number
NUMBER_BOXES = ("lesson.ans.", ".exact")
#: the lesson's class boxes (a class code, a nickname): plain text that acts on its button, not
#: a formula; hostile nicknames and codes at the button are tested in test_classroom_page.py
TEXT_BOXES = ("classroom.",)


def test_there_are_enough_bad_inputs() -> None:
    assert len(BAD) - len(ACCEPTED) >= 120


@pytest.mark.parametrize("page", PAGES)
def test_every_text_box_refuses_bad_input(page: str) -> None:
    at = open_page(page)
    keys = [box.key for box in at.text_input]
    assert keys, f"{page} has no text box"
    for key in keys:
        limit = at.text_input(key=key).max_chars
        assert limit, (page, key)  # every box is bounded (tests/app/test_text_bounds.py)
        for text in BAD:
            _EVENTS.clear()
            _ARMED[0] = True
            try:
                at.text_input(key=key).set_value(text).run()
            finally:
                _ARMED[0] = False
            assert not at.exception, (page, key, text, [e.value for e in at.exception])
            assert _EVENTS == [], (page, key, text, _EVENTS)
            text = text[:limit]  # what the box holds: Streamlit cuts a longer value
            for md in at.markdown:  # never rendered as markdown
                assert len(text.strip()) < 4 or text not in md.value, (page, key, text)
            if key.startswith(TEXT_BOXES):
                continue  # typed, held as text, shown nowhere as markdown (checked above)
            if any(kind in key for kind in NUMBER_BOXES):
                if not text.strip():
                    continue  # nothing typed: nothing to refuse (Check asks for an answer)
                said = [e.value for e in [*at.error, *at.warning]]
                assert said, (page, key, text)
                assert any(w in said[0] for w in ("number", "characters", "range")), said
                continue
            if text in ACCEPTED or _parses(text):
                continue
            errors = [e.value for e in at.error]
            assert errors, (page, key, text)
            assert any(word in errors[0] for word in ("column", "function", "characters")), errors
            echoed = [c.value.rstrip() for c in at.code]  # st.code drops a trailing newline
            assert text.rstrip() in echoed, (page, key, text)  # the whole text, however long
            if len(text.strip()) >= 4:  # (a short text may occur in the page's own prose)
                for md in at.markdown:  # never rendered as markdown
                    assert text not in md.value, (page, key, text)
        at.text_input(key=key).set_value("x**2").run()  # restore for the next box
    assert not CANARY.exists()


def test_poisoned_functions_open_the_derivatives_page_and_finish_its_columns() -> None:
    """Issue 35's families (a constant power folded through 0*x, x-x or x/x; exp of a multiple
    of a log; nested abs, relu and max-like kinks), typed into the derivatives page: no
    exception (a function that overflows float64 everywhere is said to be undefined), and
    sympy's column ends (complete or stopped, said in words) instead of holding the server."""
    from hograd_labs.derivatives import cached
    from tests.serving.test_sympy_column import FOLDED_POWERS, NESTED_KINKS

    at = open_page("pages/derivatives.py")
    for text in FOLDED_POWERS + NESTED_KINKS:
        at.text_input(key="deriv.fn").set_value(text).run()
        assert not at.exception, (text, [e.value for e in at.exception])
        x0 = float(at.session_state["deriv.x0"])
        order = int(at.session_state["deriv.order"])
        assert not cached.sympy_part(text, order, x0, wait=120).working, text
        at.run()
        assert not at.exception, (text, [e.value for e in at.exception])
        assert not any("still working" in i.value for i in at.info), text
