"""What the AppTests of the "Why gradients of gradients" tabs share: the page opened on one
tab, and its charts as plotly dicts."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.app.charts import chart_specs
from tests.apptest import APP_TEST_CEILING

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "why.py")


#: The folded parts of a tab (hograd_ui/parts/downloads.py why_script, code_file): its script, by kind,
#: and its torch.func form. They send nothing while closed; ``open_tab`` unfolds them.
FOLDED = (
    *(
        f"why.code.{kind}"
        for kind in (
            "newton",
            "hf",
            "quadratic",
            "stability",
            "stats",
            "maml",
            "pinn",
            "wgan",
            "curvature",
        )
    ),
    "why.func.open",
)


def open_tab(
    tab: str,
    lang: str = "en",
    timeout: float = APP_TEST_CEILING,
    unfold: bool = True,
    **state: object,
) -> AppTest:
    """The why page run once on ``tab`` in ``lang``, with ``state`` set first and (``unfold``)
    the script and its torch.func form unfolded; no exception."""
    at = AppTest.from_file(PAGE, default_timeout=timeout)
    at.session_state["lang"] = lang
    at.session_state["why.tab"] = tab
    for key in FOLDED if unfold else ():
        at.session_state[key] = True
    for key, value in state.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def charts(at: AppTest) -> list[dict]:
    """Every chart on the page, as its figure dict."""
    return chart_specs(at)
