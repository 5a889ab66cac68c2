"""The code page's C++ form prints what CPython prints for the same program.

The programs are the seed's x³ program, verbatim, and two more of the straight-line subset
(the Hessian-vector product printed as numbers, a backward pass); CPython runs each (one
subprocess), the C++ programs are compiled together (tests/cpp_build.py) and run, and the lines
must be the same. Programs outside the subset have no C++ form.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hograd_core.program.to_cpp import program_cpp
from hograd_labs.code.presets import PRESETS
from tests.program_corpus import SEED_X3

ROOT = Path(__file__).resolve().parents[2]

PROGRAMS = {
    "seed_x3": SEED_X3,
    "hvp_numbers": """import torch
w = torch.tensor([1.0, torch.pi / 2.0], requires_grad=True)
f = w[0]**2 * torch.sin(w[1])
grad_f = torch.autograd.grad(f, w, create_graph=True)[0]
v = torch.tensor([0.5, 1.0])
Hv = torch.autograd.grad(torch.dot(grad_f, v), w)[0]
print("grad f:", grad_f[0].item(), grad_f[1].item())
print(f"Hv = ({Hv[0].item()}, {Hv[1].item()})", Hv.requires_grad)
""",
    "backward": """import torch
x = torch.tensor(0.5, requires_grad=True)
y = torch.tanh(x) * torch.exp(-x) + 3
y.backward()
print("y =", y.item(), "dy/dx =", x.grad.item())
print(x.grad.requires_grad, 7 * 6)
""",
}

_ORACLE = r"""
import contextlib, io, json, sys
out = {}
for name, text in json.loads(sys.stdin.read()).items():
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(text, name, "exec"), {})
    out[name] = buf.getvalue().splitlines()
print(json.dumps(out))
"""


def test_outside_the_subset_there_is_no_cpp() -> None:
    assert program_cpp(PRESETS["pinn"]) is None  # nn
    assert program_cpp(PRESETS["accumulates"]) is None  # a loop
    assert program_cpp(PRESETS["hvp"]) is None  # prints a whole tensor


def programs() -> dict[str, str]:
    """The C++ form of each program, by name (built with the other modules' programs:
    tests/cpp/conftest.py)."""
    sources = {name: program_cpp(text, name) for name, text in PROGRAMS.items()}
    assert all(sources.values())
    return sources  # type: ignore[return-value]


def test_the_cpp_prints_what_python_prints(cpp_printed: dict) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _ORACLE],
        input=json.dumps(PROGRAMS),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=True,
    )
    python = json.loads(done.stdout)
    assert python["seed_x3"] == ["dy/dx at x=2.0: 12.0", "False"]
    assert cpp_printed["code_page"] == python
