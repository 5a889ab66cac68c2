"""The runnable script of the HVP page's network mode, for the student's settings, and the
figure its notebook ends with.

The script trains the page's network (:func:`hograd_core.network.train`: the same data, the
same initial weights and mini-batches from the same seed, Adam with torch's defaults) and then
reads the curvature of the analysed loss from Hessian-vector products alone, as
:func:`hograd_core.net_curvature.curvature` does: the top eigenvalue by Lanczos, power
iteration from the page's start vector, Hutchinson's trace estimate from the page's probes and,
up to ``full_hessian_max`` parameters, the full Hessian to check them. The network's functions
(:func:`~hograd_core.network.layer_blocks`, the forward pass) and Lanczos
(:func:`hograd_core.net_curvature.lanczos`) are copied in from the core's source.
"""

from __future__ import annotations

import inspect

from .applications.common import Code, initial_theta_source, marked_code, training_data_source
from .errors import BudgetError
from .net_curvature import _TIMING_ROUNDS, lanczos
from .network import (
    NETWORK_BUDGET,
    NetConfig,
    _forward,
    analysis_examples,
    analysis_limit,
    check_config,
    check_range,
    count_parameters,
    layer_blocks,
    layer_sizes,
)

__all__ = ["NETWORK_FIGURE", "network_code"]

#: Lanczos steps the script takes for the top eigenvalue (at most n).
LANCZOS_STEPS = 40


def _source(fn) -> str:  # noqa: ANN001
    """A core function's source, without its lint notes, ``_forward`` named ``forward``."""
    text = inspect.getsource(fn).replace("_forward", "forward")
    for note in ("  # noqa: ANN001, ANN201", "  # noqa: ANN001, ANN202"):
        text = text.replace(note, "")
    return text.strip("\n")


def network_code(
    config: NetConfig, top_k: int = 3, power_steps: int = 20, probes: int = 30, seed: int = 0
) -> Code:
    """A script that trains ``config``'s network and analyses its loss as the page does.

    It prints ``loss ...`` (each training step's mini-batch loss), ``lanczos ...`` (the top
    Ritz value after each Lanczos step), ``power ...`` (the Rayleigh quotient after each power
    step), ``probes ...`` (zᵀHz of each Hutchinson probe), ``trace <mean> <standard error>``
    and, up to ``NETWORK_BUDGET.full_hessian_max`` parameters, ``exact ...`` (the top
    ``top_k`` eigenvalues of the full Hessian) and ``trace_exact <tr H>``.

    Raises:
        ArgumentError, BudgetError: as :func:`~hograd_core.network.check_config` and
            :func:`~hograd_core.net_curvature.curvature` for the same settings.
    """
    check_config(config)
    b, n = NETWORK_BUDGET, count_parameters(config)
    check_range("hvp.net.budget.top_k", top_k, 1, min(b.max_top_k, n - 1))
    check_range("hvp.net.budget.power_steps", power_steps, 1, b.max_power_steps)
    check_range("hvp.net.budget.probes", probes, 2, b.max_probes)
    if power_steps + probes > analysis_limit(n):
        most = analysis_limit(n)
        raise BudgetError("hvp.net.budget.hvps", n=f"{n:,}", most=most, got=power_steps + probes)
    examples = analysis_examples(n)
    full = ""
    if n <= b.full_hessian_max:
        full = f"""
# the full Hessian, row i the gradient of g[i]: {n} more backward passes, to check the above
H = torch.stack([torch.autograd.grad(g[i], theta, retain_graph=True)[0] for i in range(n)])
H = (H + H.T) / 2  # symmetric up to rounding: make it exactly so
exact = torch.linalg.eigvalsh(H).flip(0)  # every eigenvalue, largest first
print("exact", *exact[:{top_k}].tolist())
print("trace_exact", H.trace().item())
"""
    source = f"""import math

import numpy as np
import torch
import torch.nn.functional as F
{training_data_source(config.dataset)}
sizes = {layer_sizes(config)!r}


{_source(layer_blocks)}


{_source(_forward)}


{_source(lanczos)}


{initial_theta_source(config.seed)}
theta.requires_grad_(True)
adam = torch.optim.Adam([theta], lr={config.learning_rate!r})
losses = []
for step in range({config.steps}):
    idx = torch.randint(0, len(y), (min({config.batch}, len(y)),), generator=gen)
    loss = F.cross_entropy(forward(theta, sizes, x[idx]), y[idx])
    adam.zero_grad()
    loss.backward()  # <-- training needs first derivatives only
    adam.step()
    losses.append(loss.item())
print("loss", *losses)

# the analysed loss: the first {examples} training examples, at the trained weights
theta = theta.detach().requires_grad_(True)
value = F.cross_entropy(forward(theta, sizes, x[:{examples}]), y[:{examples}])
g = torch.autograd.grad(value, theta, create_graph=True)[0]  # <-- kept: H v is one more backward
hvp = lambda v: torch.autograd.grad(g @ v, theta, retain_graph=True)[0]  # <-- H v: backward again
n = theta.numel()

gen = torch.Generator().manual_seed({int(seed)})
# the page draws {_TIMING_ROUNDS} vectors for its timings, then Lanczos's start: the same here
v0 = [torch.randn(n, generator=gen, dtype=torch.float64) for _ in range({_TIMING_ROUNDS + 1})][-1]
tops, top = lanczos(hvp, v0, {min(n, LANCZOS_STEPS)})
print("lanczos", *tops)

u = torch.randn(n, generator=gen, dtype=torch.float64)
u = u / u.norm()
power = []
for _ in range({power_steps}):  # power iteration: u <- H u / |H u|
    hu = hvp(u)
    power.append((u @ hu).item())  # the Rayleigh quotient
    u = hu / hu.norm()
print("power", *power)

z = torch.randint(0, 2, ({probes}, n), generator=gen, dtype=torch.float64) * 2 - 1  # +-1 entries
samples = [(zi @ hvp(zi)).item() for zi in z]  # Hutchinson: E[z . H z] = tr H
print("probes", *samples)
print("trace", np.mean(samples), np.std(samples, ddof=1) / math.sqrt(len(samples)))
{full}"""
    return marked_code(source.rstrip("\n") + "\n")


#: The notebook's last cell: training loss, power iteration against Lanczos (and the exact
#: value), Hutchinson's running mean against the exact trace.
NETWORK_FIGURE = """
import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

fig = make_subplots(rows=1, cols=3, subplot_titles=["training loss", "top eigenvalue",
                                                    "trace (Hutchinson)"])
fig.add_scatter(y=printed["loss"], mode="lines", name="loss", row=1, col=1)
steps = list(range(1, len(printed["power"]) + 1))
fig.add_scatter(x=steps, y=printed["power"], mode="lines+markers", name="power iteration",
                row=1, col=2)
fig.add_hline(y=printed["lanczos"][-1], line_dash="dash", annotation_text="Lanczos",
              annotation_position="bottom right", row=1, col=2)
probes = np.array(printed["probes"])
running = np.cumsum(probes) / np.arange(1, probes.size + 1)
fig.add_scatter(y=running, mode="lines", name="running mean of z·Hz", row=1, col=3)
if "exact" in printed:
    fig.add_hline(y=printed["exact"][0], line_dash="dot", annotation_text="exact",
                  annotation_position="top left", row=1, col=2)
    fig.add_hline(y=printed["trace_exact"][0], line_dash="dot", annotation_text="exact",
                  row=1, col=3)
fig.update_xaxes(title_text="step", row=1, col=1)
fig.update_xaxes(title_text="power step", row=1, col=2)
fig.update_xaxes(title_text="probes", row=1, col=3)
fig.update_yaxes(type="log", row=1, col=1)
fig.update_layout(template="plotly_white", showlegend=False)
fig.show()
"""
