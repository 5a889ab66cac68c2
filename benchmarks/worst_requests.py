"""The worst request each page allows, measured: wall time and extra memory, or refused.

Each request runs in a fresh Python process (one torch thread, as the app runs) after the
imports, so "extra memory" is the growth of the peak RSS over the process after imports. The
issue's target is under 2 s and under 200 MB extra, or a refusal with a message.

    python benchmarks/worst_requests.py          # a table
    python benchmarks/worst_requests.py --json   # one JSON object
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The longest function a learner can type stays under 200 characters and 150 nodes.
BIG = "sin(x)*exp(-x^2)*tanh(x)/(1+x^2) + log(1+x^2)*cosh(x/3) + sqrt(2+sin(x))*atan(x) + erf(x)*sigmoid(x)"  # noqa: E501

REQUESTS = {
    "derivatives: Taylor, order 30, 5,000 points, the longest function": (
        "from hograd_core import derivatives, parse\nimport numpy as np\n"
        f"derivatives(parse({BIG!r}), np.linspace(-10, 10, 5000), 30, method='taylor')"
    ),
    "derivatives: nested autograd, order 10, 5,000 points, the longest function": (
        "from hograd_core import derivatives, parse\nimport numpy as np\n"
        f"derivatives(parse({BIG!r}), np.linspace(-3, 3, 5000), 10)"
    ),
    "derivatives: nested autograd, tanh, order 10, 2,000 points (largest allowed)": (
        "from hograd_core import derivatives, parse\nimport numpy as np\n"
        "derivatives(parse('tanh(x)'), np.linspace(-3, 3, 2000), 10)"
    ),
    "derivatives: inspector, order 30, the longest function": (
        f"from hograd_core import parse\nfrom hograd_core.lab import inspect_point\n"
        f"inspect_point(parse({BIG!r}), 0.5, 30)"
    ),
    "derivatives: cost panel, tanh, order 10, 2,000 points": (
        "from hograd_core import parse\nfrom hograd_core.lab import cost_profile\n"
        "cost_profile(parse('tanh(x)'), 10, 2000)"
    ),
    "graph: order 6 of the longest function": (
        f"from hograd_core import parse, graph_lab\ngraph_lab(parse({BIG!r}), 0.7, 6)"
    ),
    "hvp: 10 variables, all three ways": (
        "from hograd_core import parse, explore\n"
        "fn = parse('+'.join(f'sin(w{i})*w{i+1}**2' for i in range(1, 10)) + '+exp(w10)')\n"
        "explore(fn, [0.5] * 10, [1.0] * 10)"
    ),
    "hvp: network, largest allowed training": (
        "from hograd_core import NetConfig, train\n"
        "train(NetConfig(hidden=(512, 128), steps=2000, batch=256))"
    ),
    # 59 = power steps + Hutchinson probes the budget allows at 100,234 parameters
    "hvp: network analysis, largest model, heaviest allowed settings (+10 training steps)": (
        "from hograd_core import NetConfig, train\nfrom hograd_core.net_curvature import curvature\n"
        "net = train(NetConfig(hidden=(512, 128), steps=10, batch=256))\n"
        "curvature(net, top_k=6, power_steps=29, probes=30)"
    ),
}

_RUNNER = """
import resource, sys, time, json
import torch
torch.set_num_threads(1)
import hograd_core, numpy, sympy, plotly  # the imports are not the request
import scipy.sparse.linalg, sklearn.datasets  # imported on first use, once per server
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
try:
    exec(compile(sys.argv[1], "<request>", "exec"), {})
    outcome = "ran"
except hograd_core.HogradError as err:
    outcome = "refused: " + str(err)
seconds = time.perf_counter() - start
extra = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
print(json.dumps({"seconds": seconds, "extra_mb": extra, "outcome": outcome}))
"""


def measure(code: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", _RUNNER, code], cwd=ROOT, capture_output=True, text=True,
        timeout=300, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    if out.returncode != 0:
        return {"seconds": None, "extra_mb": None, "outcome": "crashed: " + out.stderr[-300:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = []
    for name, code in REQUESTS.items():
        r = measure(code)
        r["request"] = name
        r["within_target"] = r["outcome"].startswith("refused") or (
            r["seconds"] is not None and r["seconds"] < 2.0 and r["extra_mb"] < 200
        )
        results.append(r)
        if not args.json:
            secs = "-" if r["seconds"] is None else f"{r['seconds']:.2f} s"
            mb = "-" if r["extra_mb"] is None else f"{r['extra_mb']:.0f} MB"
            flag = "ok" if r["within_target"] else "OVER"
            print(f"{flag:4} {secs:>8} {mb:>7}  {name}: {r['outcome'][:110]}")
    if args.json:
        print(json.dumps({"results": results}))


if __name__ == "__main__":
    main()
