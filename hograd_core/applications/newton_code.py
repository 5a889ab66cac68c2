"""The runnable script of the Newton-vs-gradient-descent experiment, for the student's settings."""

from __future__ import annotations

import inspect

from ..language import Function
from ..language.to_source import python_name, torch_source
from .common import Code, marked_code
from .newton import MAX_RADIUS, METHODS, RaceConfig, trust_region_step

__all__ = ["race_code"]

_UPDATES = {
    "newton": "step = solve(H, g)",
    "damped": "step = solve(H + damping * torch.eye(2, dtype=torch.float64), g)",
}


def race_code(fn: Function, config: RaceConfig) -> Code:
    """A script that runs the same methods with the same settings and prints, per method,
    ``method steps x y f`` at its last point (the numbers the page shows)."""
    names = {v: python_name(v, {"torch", "w", "f"}) for v in fn.variables}
    unpack = ", ".join(names.values()) if len(set(names.values())) == 2 else None
    head = f"{unpack} = w[0], w[1]" if unpack else "x, y = w[0], w[1]"
    body = torch_source(fn, names if unpack else dict(zip(fn.variables, ("x", "y"), strict=True)))
    lines = [
        "import math", "", "import torch", "", "",
        "def f(w):", f"    {head}", f"    return {body}", "", "",
        "def derivatives(w, second):",
        "    w = w.detach().requires_grad_(True)",
        "    value = f(w)",
        "    if not value.requires_grad:  # f does not depend on w: g = 0, H = 0",
        "        zero = torch.zeros(2, dtype=torch.float64)",
        "        return value.item(), zero, torch.zeros(2, 2, dtype=torch.float64) if second else None",
        "    if not second:",
        "        g = torch.autograd.grad(value, w)[0]  # <-- no create_graph: g is only a number",
        "        return value.item(), g, None",
        "    g = torch.autograd.grad(value, w, create_graph=True)[0]  # <-- g keeps its graph",
        "    if not g.requires_grad:  # f is linear: g is a constant and H = 0",
        "        return value.item(), g, torch.zeros(2, 2, dtype=torch.float64)",
        "    H = torch.stack([torch.autograd.grad(g[i], w, retain_graph=True)[0] for i in range(2)])",
        "    return value.item(), g.detach(), H",
        "", "",
        "def solve(m, g):",
        "    if not torch.isfinite(m).all() or not torch.linalg.cond(m) <= 1e12:  # cond(0) is NaN",
        "        return None  # singular: there is no inverse to apply",
        "    return torch.linalg.solve(m, g)",
        "", "",
    ]  # fmt: skip
    if "trust" in config.methods:
        lines += [*inspect.getsource(trust_region_step).splitlines(), "", ""]
    lines += [
        f"lr, damping, tol = {config.lr!r}, {config.damping!r}, {config.tol!r}",
        f"for method in {config.methods!r}:",
        f"    w = torch.tensor({list(config.start)!r}, dtype=torch.float64)",
        f"    radius = {config.radius!r}",
        '    value, g, H = derivatives(w, method != "gd")',
        "    steps = 0",
        f"    while steps < {config.steps} and g.norm() > tol:",
    ]  # fmt: skip
    for i, method in enumerate(m for m in METHODS if m in config.methods):
        cond = "if" if i == 0 else "elif"
        lines.append(f'        {cond} method == "{method}":')
        if method == "trust":
            lines += [
                "            p = trust_region_step(g, H, radius)",
                "            predicted = -(g @ p + 0.5 * p @ H @ p).item()",
                "            rho = (value - f(w + p).item()) / predicted if predicted > 0 else -1.0",
                "            if rho < 0.25:",
                "                radius *= 0.25",
                "            elif rho > 0.75 and p.norm().item() >= 0.99 * radius:",
                f"                radius = min(2 * radius, {MAX_RADIUS!r})",
                "            w = w + p if rho > 0.1 else w",
            ]  # fmt: skip
        elif method == "gd":
            lines.append("            w = w - lr * g")
        else:
            lines += [
                f"            {_UPDATES[method]}",
                "            if step is None:",
                '                print(method, "singular at step", steps)',
                "                break",
                "            w = w - step",
            ]  # fmt: skip
    lines += [
        '        value, g, H = derivatives(w, method != "gd")',
        "        steps += 1",
        "        if not math.isfinite(value) or w.abs().max() > 1e6:",
        '            print(method, "diverged at step", steps)',
        "            break",
        "    else:",
        '        print(method, steps, w[0].item(), w[1].item(), value)',
    ]  # fmt: skip
    return marked_code("\n".join(lines) + "\n")
