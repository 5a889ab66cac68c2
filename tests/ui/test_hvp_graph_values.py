"""The HVP graph's drawing shows its numbers rounded as the page's summary does (issue 36,
item 19): w1**2*sin(w2) at (1, π/2) along v = (0.5, 1) has ∇f = (2, 2·cos(π/2)) = (2, 0) and
Hv = (2·sin(w2)·v1 + 2·w1·cos(w2)·v2, 2·w1·cos(w2)·v1 − w1²·sin(w2)·v2) = (1, −1): the drawing
said df/dw2 = 6.123e-17, float64's cos(π/2)."""

from __future__ import annotations

import re

import pytest

from hograd_core.hvp_graph import hvp_graph
from hograd_core.language import parse
from hograd_labs.graph.figures import hvp_dot
from hograd_ui.i18n import tr


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("record", [False, True])
def test_node_values_are_rounded_like_the_summary(lang: str, record: bool) -> None:
    result = hvp_graph(parse("w1**2*sin(w2)"), "1, pi/2", "0.5, 1", record)
    labels = re.findall(r'label="([^"]*)"', hvp_dot(result, lang))
    values = dict(
        line.split(" = ") for label in labels for line in label.split("\n") if " = " in line
    )
    # the summary's numbers (the oracle above): ∇f = (2, 0), Hv = (1, −1)
    assert (values["df/dw1"], values["df/dw2"]) == ("2", "0")
    assert (values["(Hv)_w1"], values["(Hv)_w2"]) == ("1", "-1")
    assert values["w2"] == "1.571" and values["f"] == "1"
    assert not [v for v in values.values() if "e-" in v], values  # no rounding noise shown
    assert "12" in tr("graphvars.rounded", lang, decimals=12)
