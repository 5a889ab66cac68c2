"""The README names exactly the tabs of "Why gradients of gradients" that offer a second
download in torch.func form, read from the tabs' own code: a tab offers one when its page passes
a second source to ``why_script`` or ``why_code`` (hograd_ui/parts/downloads.py), and it is
torch.func's unless the call names another ``form`` (the curvature tab's second form is
torch.autograd's: its first is torch.func's)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: How the README's sentence names each tab.
NAMES = {
    "newton": "Newton",
    "hf": "Hessian-free Newton",
    "stability": "the stability limit",
    "stats": "gradient statistics",
    "maml": "MAML",
    "pinn": "the PINN",
    "wgan": "WGAN-GP",
    "curvature": "Curvature",
}


def _tabs() -> list[str]:
    """The tabs in order, from the page's own registry (importing it only declares)."""
    from pages.why import TABS

    return [lab.name for lab in TABS]


def _second_form(tab: str) -> str | None:
    """The second form: "func" when the page passes a second source to why_script/why_code,
    "other" when it also names its ``form``, None when it passes none."""
    tree = ast.parse((ROOT / "hograd_labs" / tab / "page.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") in (
            "why_script",
            "why_code",
        ):
            second = node.args[1] if len(node.args) > 1 else None
            second = second or next(
                (k.value for k in node.keywords if k.arg == "func_source"), None
            )
            if second is not None and not (
                isinstance(second, ast.Constant) and second.value is None
            ):
                named = any(k.arg == "form" for k in node.keywords) or (
                    node.func.id == "why_code" and len(node.args) > 3  # its 4th is the form
                )
                return "other" if named else "func"
    return None


def test_the_readme_names_the_tabs_with_a_torch_func_form() -> None:
    tabs = _tabs()
    assert set(tabs) == set(NAMES)  # a new tab gets its name here
    with_form = [t for t in tabs if _second_form(t) == "func"]
    other = [t for t in tabs if _second_form(t) == "other"]
    without = [t for t in tabs if _second_form(t) is None]
    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    listed = re.search(r"on (\w+) tabs of \"Why gradients of gradients\" \(([^)]*)\)", text)
    assert listed, "the README lists the tabs with a torch.func form"
    words = {"seven": 7, "six": 6, "eight": 8, "five": 5}
    assert words[listed[1]] == len(with_form)
    assert [n.strip() for n in listed[2].split(",")] == [NAMES[t] for t in with_form]
    for tab in without:  # and says why each other tab has none
        assert f"tab, {NAMES[tab]}, offers no second form" in text
    for tab in other:  # and which tab has them the other way round
        assert f"tab, {NAMES[tab]}, has its two forms the other way round" in text
