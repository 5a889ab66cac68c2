"""The torch.func forms of the "Why gradients of gradients" scripts: each is generated, run, and
its printed numbers compared with the plain script's and with the core's (the page's), in
float64. torch.func and nested torch.autograd.grad compute the same derivatives by different
sequences of operations, so the numbers agree to rounding; where a run trains, the run is short
enough that rounding has not been amplified past the tolerance.
"""

from __future__ import annotations

import contextlib
import io
import re

import numpy as np
import pytest

from hograd_core.applications import func_forms as ff
from hograd_core.curvature import _load_forward_ad


def printed(source: str) -> dict[str, np.ndarray]:
    """Run a generated script; its ``name value ...`` lines by name (words other than numbers,
    as in ``lambda_max 10.0 stable_below 0.2``, dropped)."""
    _load_forward_ad()  # torch's own first-use DeprecationWarning, silenced as the app does
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "<generated>", "exec"), {})  # noqa: S102 - our generated script
    rows = {}
    for line in out.getvalue().splitlines():
        name, *words = line.split()
        rows[name] = np.array(
            [float(w) for w in words if not w[0].isalpha() or w in ("nan", "inf")]
        )
    return rows


def same(a: dict, b: dict, rtol: float) -> None:
    assert a.keys() == b.keys()
    for name in a:
        np.testing.assert_allclose(a[name], b[name], rtol=rtol, atol=0, err_msg=name)


def transforms_only(func: str, kept: int = 0) -> None:
    """The form imports torch.func and calls torch.autograd.grad ``kept`` times (no more)."""
    assert "from torch.func import " in func
    assert func.count("torch.autograd.grad(") == kept


# ---- refusals ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(ff.FORMS))
def test_a_script_the_form_does_not_fit_is_refused(name: str) -> None:
    with pytest.raises(ValueError, match=re.compile(r"^not the .* script: .* is missing$")):
        ff.FORMS[name]("import torch\nprint('hello')\n")
