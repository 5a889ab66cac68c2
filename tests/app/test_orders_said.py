"""How far each derivative method goes, said the same on the derivatives page, the home page and
in the README, each number read from the constant that stops the method (issue 46 item 10); and
every tab of "Why gradients of gradients" named on the home card and in the README's row."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hograd_core import BUDGET
from hograd_core.forward_mode import FORWARD_BUDGET
from hograd_core.inspector import MAX_FD_ORDER
from hograd_ui.i18n import catalogue
from tests.app.conftest import open_page

ROOT = Path(__file__).resolve().parents[2]
TAYLOR, AUTOGRAD = BUDGET.max_order_taylor, BUDGET.max_order_autograd
JVP, FORWARD_AD = FORWARD_BUDGET.max_order_jvp, FORWARD_BUDGET.max_order

#: A word each tab's name carries, as the home card and the README write it.
TAB_WORDS = {
    "newton": "Newton",
    "hf": "Hessian-free",
    "stability": "stability limit",
    "stats": "gradient statistics",
    "maml": "MAML",
    "pinn": "physics-informed",
    "wgan": "WGAN-GP",
    "curvature": "curvature",
}
TAB_WORDS_ZH = {
    "newton": "牛顿",
    "hf": "无 Hessian",
    "stability": "稳定性极限",
    "stats": "梯度统计",
    "maml": "MAML",
    "pinn": "物理信息",
    "wgan": "WGAN-GP",
    "curvature": "曲率",
}


def _readme_row(page: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return next(line for line in text.splitlines() if line.startswith(f"| {page} |"))


def test_the_readme_says_which_method_reaches_which_order() -> None:
    row = _readme_row("Derivatives")
    for said in (
        f"to order {TAYLOR} by Taylor mode",
        f"to order {AUTOGRAD} by nested autograd",
        f"finite differences to order {MAX_FD_ORDER}",
        f"nested `jvp` to order {JVP}",
        f"`forward_ad` to order {FORWARD_AD}",
        "`gradcheck` (order 1)",
        "`gradgradcheck` (order 2)",
    ):
        assert said in row, said
    named = {int(n) for n in re.findall(r"order (\d+)", row)}
    assert named <= {1, 2, TAYLOR, AUTOGRAD, MAX_FD_ORDER, JVP, FORWARD_AD}, named
    assert "every order" not in row and "all its derivatives" not in row


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_order_slider_says_how_far_each_method_goes(lang: str) -> None:
    at = open_page("pages/derivatives.py", lang)
    help_text = at.slider(key="deriv.order").help
    numbers = [int(n) for n in re.findall(r"\d+", help_text)]
    assert numbers == [TAYLOR, AUTOGRAD, MAX_FD_ORDER, JVP, FORWARD_AD, 1, 2], help_text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_home_page_names_each_limit_and_every_why_tab(lang: str) -> None:
    at = open_page(None, lang)
    text = "\n".join(str(m.value) for m in at.markdown)
    card = catalogue(lang)["home.derivatives"].format(
        autograd=AUTOGRAD, taylor=TAYLOR, fd=MAX_FD_ORDER
    )
    assert card in text
    assert [int(n) for n in re.findall(r"\d+", card)] == [AUTOGRAD, TAYLOR, MAX_FD_ORDER]
    why = catalogue(lang)["home.why"]
    assert why in text
    words = TAB_WORDS if lang == "en" else TAB_WORDS_ZH
    missing = [tab for tab, word in words.items() if word.lower() not in why.lower()]
    assert not missing, missing


def test_the_readme_why_row_names_every_tab() -> None:
    from pages.why import TABS  # the page's registry (importing it only declares)

    tabs = {lab.name for lab in TABS}
    assert set(tabs) == set(TAB_WORDS) == set(TAB_WORDS_ZH)  # a new tab gets its word here
    row = _readme_row("Why gradients of gradients").lower()
    assert not [tab for tab, word in TAB_WORDS.items() if word.lower() not in row]
