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
from hograd_core.applications.stability import StabilityConfig, net_stability, quadratic_gd
from hograd_core.applications.stability_code import quadratic_code, stability_code
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


# ---- stability: Hessian-vector products by jvp(grad(f)) ---------------------------------------


@pytest.mark.parametrize(("kappa", "lr"), [(10.0, 0.19), (10.0, 0.21), (1000.0, 2.5)])
def test_quadratic_form_finds_the_same_limit(kappa: float, lr: float) -> None:
    plain = quadratic_code(kappa, lr, 200).source
    func = ff.quadratic_func_code(plain)
    transforms_only(func)
    by_func, run = printed(func), quadratic_gd(kappa, lr, 200)
    same(by_func, printed(plain), rtol=1e-13)
    assert by_func["lambda_max"][0] == pytest.approx(run.lambda_max, rel=1e-13)
    assert by_func["lambda_max"][0] == pytest.approx(kappa, rel=1e-12)  # H = diag(1, kappa)
    np.testing.assert_allclose(by_func["loss"], run.losses, rtol=1e-13)


def test_stability_form_measures_the_same_sharpness() -> None:
    config = StabilityConfig(lr=1.0, steps=60, every=20, lanczos_iters=8)
    plain = stability_code(config).source
    func = ff.stability_func_code(plain)
    transforms_only(func)
    assert func.count("jvp(grad(loss_of), (theta,), (u,))") == 2  # at the start, in the loop
    by_func, run = printed(func), net_stability(config)
    same(by_func, printed(plain), rtol=1e-9)  # Lanczos: as the plain script's own test
    np.testing.assert_allclose(by_func["loss"], run.losses, rtol=1e-12)
    np.testing.assert_allclose(by_func["sharpness"], run.sharpness, rtol=1e-9)
    assert by_func["lambda0"][0] == pytest.approx(run.lambda0, rel=1e-9)


# ---- refusals ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(ff.FORMS))
def test_a_script_the_form_does_not_fit_is_refused(name: str) -> None:
    with pytest.raises(ValueError, match=re.compile(r"^not the .* script: .* is missing$")):
        ff.FORMS[name]("import torch\nprint('hello')\n")
