"""Session isolation on one real server: students working at the same time never see each
other's function, settings or language.

Every session of a class shares one Streamlit process, so one mutable module-level object or
one ``cache_resource`` holding per-user data would leak a student's function into another's
page. Two websocket sessions (``benchmarks/st_client.py``, the client the load benchmark
uses) and two browser contexts work on the derivatives page with different functions and
settings, interleaved and at the same moment, and each checks that its LaTeX, code and error
texts hold only its own function.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from benchmarks.st_client import StreamlitClient
from tests.e2e.conftest import running_server, type_function, wait_for_app

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def iso_server():
    with running_server("isolation-server") as url:
        yield url


def _rerun_together(*clients: StreamlitClient) -> None:
    """Rerun every client at the same moment (their script runs overlap on the server)."""
    with ThreadPoolExecutor(len(clients)) as pool:
        runs = list(pool.map(lambda c: c.rerun(), clients))
    for run in runs:
        assert run.status == "ok"


def _sees_only(c: StreamlitClient, own: dict, other: dict) -> None:
    """The page of ``c`` shows its own function, order, x0 and language, none of the other's."""
    assert not c.exceptions
    assert not c.errors, c.errors
    latex = "\n".join(c.latex)
    code = "\n".join(c.codes)
    assert own["latex"] in latex and other["latex"] not in latex, latex
    assert own["torch"] in code and other["torch"] not in code, code
    # the snippet runs at this session's x0 and to its order
    assert f"print_derivatives(f, {own['x0']}, {own['order']})" in code, code[-200:]
    assert c.widget("deriv.fn").current() == own["fn"]
    assert c.widget("deriv.order").current() == own["order"]
    assert c.widget("deriv.points").current() == own["points"]
    assert c.headings[0] == own["title"], c.headings


A = {
    "fn": "tanh(x)",
    "order": 7,
    "points": "500",
    "x0": 1.25,
    "latex": r"\tanh",
    "torch": "torch.tanh(x)",
    "title": "Derivatives of every order",
}
B = {
    "fn": "x**3",
    "order": 2,
    "points": "2000",
    "x0": -0.75,
    "latex": "x^{3}",
    "torch": "x ** 3",
    "title": "Derivatives of every order",
}


def test_the_load_client_reruns_against_the_real_server(iso_server: str) -> None:
    """The load benchmark's client works against this app (so the benchmark runs in CI)."""
    with StreamlitClient(iso_server, timeout=120) as c:
        first = c.open("derivatives")
        assert first.status == "ok" and not c.exceptions
        assert {"deriv.fn", "deriv.order", "deriv.range", "deriv.points", "deriv.x0"} <= set(
            c.keys()
        )
        assert c.chart_count >= 1 and c.headings
        c.set_value("deriv.fn", "sin(x)")
        c.set_value("deriv.order", 3)
        run = c.rerun()
        assert run.status == "ok" and run.seconds > 0  # a rerun happened and was timed
        assert any(line.startswith(r"f(x) = \sin") for line in c.latex), c.latex
        assert c.widget("deriv.order").current() == 3
        c.set_value("deriv.fn", "sin(")
        c.rerun()
        assert c.errors and "sin(" in c.echoed  # refused, and echoed only as code


def test_the_load_client_fires_the_pages_timers_as_a_browser_does(iso_server: str) -> None:
    """While sympy works in the background the derivatives page polls (st.fragment with
    run_every); the load benchmark's client keeps those timers and fires them, and the
    page's full run at the end clears them, as in a browser."""
    import time

    with StreamlitClient(iso_server, timeout=120) as c:
        c.open("derivatives")
        c.set_value("deriv.fn", "sin(3*x)*exp(-x^2/3)")  # sympy needs > 1 s for order 30
        c.set_value("deriv.order", 30)
        c.rerun()
        assert c.auto_reruns and all(v > 0 for v in c.auto_reruns.values())
        assert any("still working" in i for i in c.infos)
        deadline = time.monotonic() + 180
        polls = 0
        while c.auto_reruns and time.monotonic() < deadline:
            fid, every = next(iter(c.auto_reruns.items()))
            time.sleep(every)
            assert c.poll(fid).status == "ok"
            polls += 1
        assert not c.auto_reruns and polls >= 1
        assert not any("still working" in i for i in c.infos) and not c.exceptions
        assert c.widget("deriv.order").current() == 30  # the same page, now complete


def test_two_sessions_never_see_each_others_state(iso_server: str) -> None:
    with (
        StreamlitClient(iso_server, timeout=120) as a,
        StreamlitClient(iso_server, timeout=120) as b,
    ):
        a.open("derivatives")
        b.open("derivatives")
        for c, own in ((a, A), (b, B)):
            c.set_value("deriv.fn", own["fn"])
            c.set_value("deriv.order", own["order"])
            c.set_value("deriv.points", own["points"])
            c.set_value("deriv.tab.en", "Show the PyTorch code")  # tabs compute only the open one
        _rerun_together(a, b)
        for c, own in ((a, A), (b, B)):  # x0's range depends on the first run
            c.set_value("deriv.x0", own["x0"])
        _rerun_together(a, b)
        _sees_only(a, A, B)
        _sees_only(b, B, A)

        # Interleaved: one session changes, then the other, then both rerun together.
        for _ in range(3):
            a.set_value("deriv.separate", not a.widget("deriv.separate").current())
            a.rerun()
            b.rerun()
            _rerun_together(a, b)
            _sees_only(a, A, B)
            _sees_only(b, B, A)

        # A types a broken function: only A sees the error and only A's text is echoed.
        a.set_value("deriv.fn", "tanh(")
        b.set_value("deriv.range", (-1.0, 1.0))
        _rerun_together(a, b)
        assert a.errors and a.echoed == ["tanh("]
        assert not b.errors and not b.echoed
        _sees_only(b, B, A)

        # A switches to Chinese; B stays in English.
        a.set_value("deriv.fn", A["fn"])
        a.rerun()
        a.set_value("lang", "简体中文")
        _rerun_together(a, b)
        assert a.headings[0] == "任意阶导数" and "deriv.method.zh" in set(a.keys())
        _sees_only(b, B, A)
        assert "deriv.method.en" in set(b.keys())


def test_two_browsers_never_see_each_others_state(browser, iso_server: str) -> None:
    contexts = [browser.new_context(viewport={"width": 1280, "height": 800}) for _ in range(2)]
    try:
        pa, pb = (ctx.new_page() for ctx in contexts)
        for pg in (pa, pb):
            pg.set_default_timeout(120_000)
            pg.goto(f"{iso_server}/derivatives")
        for pg in (pa, pb):
            wait_for_app(pg)

        def formulas(pg) -> str:
            return " ".join(pg.locator(".katex").all_text_contents())

        def code(pg) -> str:
            return " ".join(pg.locator("[data-testid='stCode']").all_text_contents())

        type_function(pa, "tanh(x)", wait=False)
        type_function(pb, "x**3", wait=False)
        for pg in (pa, pb):
            wait_for_app(pg)
            pg.get_by_role("tab", name="Show the PyTorch code").click()  # computed when open
            wait_for_app(pg)
        pa.get_by_text("简体中文").click()
        wait_for_app(pa)
        for _ in range(2):  # B changes again while A is idle, then A reruns while B is idle
            type_function(pb, "x**3 + 1")
            type_function(pb, "x**3")
            type_function(pa, "tanh(x)*1")
            type_function(pa, "tanh(x)")
        assert "tanh" in formulas(pa) and "tanh" not in formulas(pb)
        assert "torch.tanh(x)" in code(pa) and "torch.tanh" not in code(pb)
        assert "x ** 3" in code(pb) and "x ** 3" not in code(pa)
        body_a, body_b = pa.inner_text("body"), pb.inner_text("body")
        assert "任意阶导数" in body_a and "任意阶导数" not in body_b
        assert "Derivatives of every order" in body_b
        for pg in (pa, pb):
            assert pg.locator("[data-testid='stException']").count() == 0
    finally:
        for ctx in contexts:
            ctx.close()
