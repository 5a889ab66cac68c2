"""A physics-informed network: a small MLP u(x, t) trained so that a PDE holds.

The network takes a point (x, t) and returns u. The loss asks three things of it:

* the PDE on random interior points: the residual r = u_t − α u_xx (heat) or
  r = u_tt − c² u_xx (wave) should vanish;
* the initial condition u(x, 0) = sin(πx) (for the wave also u_t(x, 0) = 0);
* the boundaries u(0, t) = u(1, t) = 0.

u_t, u_xx and u_tt are derivatives of the network's output with respect to its *inputs*,
taken by ``torch.autograd.grad``. They sit inside the loss, and the optimiser needs the
gradient of that loss with respect to the *weights*: a derivative of a derivative. That is
why every derivative that enters the loss is taken with ``create_graph=True``, which records
the backward pass itself as a graph that ``loss.backward()`` can differentiate again.

Without it, ``torch.autograd.grad`` runs its backward pass with graph recording off, and the
tensor it returns has no ``grad_fn`` and ``requires_grad=False``: to the rest of the program
it is a constant. Asking it for a further derivative raises ("element 0 of tensors does not
require grad"), so u_x, from which u_xx is taken, must keep its graph. The natural mistake is
to drop the flag from the second-derivative calls (and, for the wave, from the u_t(x, 0) call).
Written that way the script raises ("Trying to backward through the graph a second time"):
each of those calls frees the graph the next one or ``loss.backward()`` needs. With
``retain_graph=True`` where PyTorch asks for it, the script runs, and the derivatives taken
without the flag are constants: the wave's residual and its u_t(x, 0) term give the weights a
gradient of exactly 0; the heat residual u_t − α u_xx still has u_t, taken with the flag for
u_xx's sake, so it gets a gradient through u_t alone: not the residual's gradient.

Exact solutions on x ∈ [0, 1] with u(x, 0) = sin(πx) and zero boundaries:
heat u = e^{−απ²t} sin(πx); wave (u_t(x, 0) = 0) u = sin(πx) cos(cπt).

This file is the experiment of hograd's physics-informed network tab, whole: the page runs it,
and its download is this file with the page's settings on the lines under ``if __name__ ==
"__main__":``. Run it (``python pinn.py``) and it prints what the page shows, one ``name value
...`` line each. It needs only torch and numpy. The ``# %%`` lines cut it into a notebook's
cells.
"""

# %% Settings
import math
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import torch
from torch.func import grad, hessian, jacrev, vmap

__all__ = [
    "EQUATIONS",
    "GRID",
    "PinnConfig",
    "PinnRun",
    "exact_solution",
    "fit_summary",
    "mlp",
    "network_parameters",
    "network_sizes",
    "preset",
    "report",
    "run",
    "terms",
    "terms_func",
]

EQUATIONS = ("heat", "wave")
GRID = 41  # points of the drawn grid along x and along t (slices at t = 0, T/4, T/2, 3T/4, T)


@dataclass(frozen=True)
class PinnConfig:
    equation: str = "heat"  # "heat": u_t = α u_xx; "wave": u_tt = c² u_xx
    coefficient: float = 0.2  # α (heat) or c (wave)
    t_max: float = 1.0  # the time window [0, T]
    width: int = 20  # tanh units per hidden layer
    depth: int = 2  # hidden layers
    steps: int = 500  # Adam steps
    points: int = 256  # interior collocation points (drawn once)
    edge: int = 64  # points on the initial line and on each boundary
    lr: float = 0.02  # Adam's learning rate
    w_residual: float = 1.0  # the weights of the three terms of the loss
    w_initial: float = 1.0
    w_boundary: float = 1.0
    create_graph: bool = True  # False: the derivative terms come back as constants
    seed: int = 0  # the weights and the points drawn (torch.Generator)


def preset(equation: str) -> PinnConfig:
    """The default settings of each equation: the wave trains longer (c = 1, half a period)."""
    if equation == "wave":
        return PinnConfig(equation="wave", coefficient=1.0, steps=600)
    return PinnConfig()


# %% The network u(x, t) and the exact solutions
def network_sizes(config: PinnConfig) -> tuple[int, ...]:
    return (2, *(config.width,) * config.depth, 1)  # (x, t) in, u out


def network_parameters(sizes: tuple[int, ...], gen: torch.Generator) -> list[torch.Tensor]:
    """Weights (randn / sqrt(fan_in)) and zero biases, layer by layer, requiring grad."""
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=True):
        w = torch.randn(fan_out, fan_in, generator=gen, dtype=torch.float64) / math.sqrt(fan_in)
        params += [w.requires_grad_(), torch.zeros(fan_out, dtype=torch.float64).requires_grad_()]
    return params


def mlp(params: list[torch.Tensor], xt: torch.Tensor) -> torch.Tensor:
    """u at each row (x, t) of ``xt`` (N, 2): tanh hidden layers, a linear output; shape (N,)."""
    h = xt
    for k in range(0, len(params), 2):
        h = torch.addmm(params[k + 1], h, params[k].T)
        if k < len(params) - 2:
            h = torch.tanh(h)
    return h[:, 0]


def exact_solution(config: PinnConfig, x: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The closed-form solution at (x, t) (broadcast)."""
    k = config.coefficient
    if config.equation == "heat":
        return np.exp(-k * math.pi**2 * t) * np.sin(math.pi * x)
    return np.sin(math.pi * x) * np.cos(k * math.pi * t)


# %% The residual: derivatives of u with respect to its INPUTS, inside the loss
def terms(
    u: torch.Tensor,
    xt: torch.Tensor,
    equation: str,
    coefficient: float,
    keep: bool,
    retain: bool = True,
) -> torch.Tensor:
    """The PDE residual of ``u`` (the network at the rows of ``xt``) by autograd.

    Every row's u depends on its own (x, t) only, so the gradient of u.sum() holds each row's
    own derivatives. The first derivatives always keep their graph (u_xx and u_tt are taken
    from them). ``keep=False`` drops create_graph=True from the second-derivative calls, the
    natural mistake: they come back as constants. ``retain=False`` then also leaves out the
    retain_graph=True that PyTorch asks for, and the wave's u_tt call raises.
    """
    du = torch.autograd.grad(u.sum(), xt, create_graph=True)[0]  # (N, 2): u_x, u_t
    if equation == "heat":
        u_t = du[:, 1]  # has a graph: it is part of du
        u_xx = torch.autograd.grad(
            du[:, 0].sum(), xt, create_graph=keep, retain_graph=True if keep else retain
        )[0][:, 0]  # <-- create_graph=keep: with False, u_xx is a constant
        return u_t - coefficient * u_xx  # the heat equation: u_t = α u_xx
    u_xx = torch.autograd.grad(
        du[:, 0].sum(), xt, create_graph=keep, retain_graph=True if keep else retain
    )[0][:, 0]  # <-- create_graph=keep
    u_tt = torch.autograd.grad(du[:, 1].sum(), xt, create_graph=keep)[0][:, 1]  # <-- and here
    return u_tt - coefficient**2 * u_xx  # the wave equation: u_tt = c² u_xx


def velocity(u0: torch.Tensor, initial: torch.Tensor, keep: bool, retain: bool = True):
    """u_t at the initial points (x, 0) by autograd (the wave starts at rest: u_t = 0)."""
    return torch.autograd.grad(
        u0.sum(), initial, create_graph=keep, retain_graph=True if keep else retain
    )[0][:, 1]  # <-- create_graph=keep: with False, a constant


# %% The same derivatives with torch.func: vmap over the points of one point's derivatives
def terms_func(
    params: list[torch.Tensor], xt: torch.Tensor, equation: str, coefficient: float, keep: bool
) -> torch.Tensor:
    """:func:`terms` by function transforms: ``u_at`` is the network at one point (x, t), a
    number; ``vmap(jacrev(u_at))`` gives u_x and u_t at every point, ``vmap(hessian(u_at))``
    the second derivatives. The weights stay ordinary tensors, so ``loss.backward()``
    differentiates these results with respect to them. torch.func has no create_graph flag:
    ``keep=False`` is written as ``.detach()``, the same constants."""

    def u_at(p):
        return mlp(params, p[None])[0]

    cut = (lambda z: z) if keep else torch.Tensor.detach
    if equation == "heat":  # the natural mistake drops the flag from u_xx only
        u_t = vmap(jacrev(u_at))(xt)[:, 1]  # (N,): du/dt at every point
        u_xx = cut(vmap(hessian(u_at))(xt)[:, 0, 0])  # (N,): d2u/dx2 at every point
        return u_t - coefficient * u_xx
    d2u = cut(vmap(hessian(u_at))(xt))  # (N, 2, 2): [[u_xx, u_xt], [u_tx, u_tt]]
    return d2u[:, 1, 1] - coefficient**2 * d2u[:, 0, 0]


def velocity_func(params: list[torch.Tensor], initial: torch.Tensor, keep: bool):
    """:func:`velocity` by ``vmap(jacrev(u_at))`` (``.detach()`` without the flag)."""
    v0 = vmap(jacrev(lambda p: mlp(params, p[None])[0]))(initial)[:, 1]  # (N,): u_t at (x, 0)
    return v0 if keep else v0.detach()


# %% The loss: the residual, the initial condition, the boundaries
def _points(config: PinnConfig, gen: torch.Generator) -> tuple[torch.Tensor, ...]:
    """Interior points (x, t), the initial line's (x, 0) and both boundaries' (0|1, t)."""
    f64 = torch.float64
    inner = torch.rand(config.points, 2, generator=gen, dtype=f64)
    inner = inner * torch.tensor([1.0, config.t_max], dtype=f64)
    x0 = torch.rand(config.edge, generator=gen, dtype=f64)
    initial = torch.stack([x0, torch.zeros_like(x0)], dim=1)
    tb = torch.rand(config.edge, generator=gen, dtype=f64) * config.t_max
    side = torch.stack([torch.zeros_like(tb), tb], dim=1)
    boundary = torch.cat([side, side + torch.tensor([1.0, 0.0], dtype=f64)])
    return inner.requires_grad_(), initial.requires_grad_(), boundary


def _loss_terms(params, config, inner, initial, boundary, parts=None, retain=True, func=False):
    """(residual, initial, boundary) mean squares of the network; for the wave the initial
    term holds u_t(x, 0)² too, which is also put in ``parts["velocity"]`` when given.
    ``func``: the input derivatives by torch.func (:func:`terms_func`, :func:`velocity_func`)."""
    keep, eq, k = config.create_graph, config.equation, config.coefficient
    if func:
        r = terms_func(params, inner, eq, k, keep)
    else:
        r = terms(mlp(params, inner), inner, eq, k, keep, retain)
    u0 = mlp(params, initial)
    start = (u0 - torch.sin(math.pi * initial[:, 0].detach())).pow(2).mean()  # u(x, 0) = sin(πx)
    if config.equation == "wave":  # also at rest: u_t(x, 0) = 0
        v0 = velocity_func(params, initial, keep) if func else velocity(u0, initial, keep, retain)
        speed = v0.pow(2).mean()
        if parts is not None:
            parts["velocity"] = speed
        start = start + speed
    return r.pow(2).mean(), start, mlp(params, boundary).pow(2).mean()  # u(0|1, t) = 0


def _weights(config: PinnConfig) -> tuple[float, float, float]:
    return (config.w_residual, config.w_initial, config.w_boundary)


# %% What the flag changes: which terms reach the weights, what PyTorch raises without it
def _omission_error(params, config, inner, initial, boundary) -> str:
    """What PyTorch says when the flag is dropped and retain_graph=True not added: one step's
    loss and backward, written that way; "" if it runs (it does not, in either equation)."""
    try:
        three = _loss_terms(params, config, inner, initial, boundary, retain=False)
        loss = sum(w * term for w, term in zip(_weights(config), three, strict=True))
        loss.backward()
    except RuntimeError as err:
        return str(err)
    finally:
        for p in params:
            p.grad = None
    return ""


def _fit(config: PinnConfig, residual: torch.Tensor, velocity) -> tuple[tuple[str, str], ...]:
    """Each term of the loss and what the optimiser can do with it (see :class:`PinnRun`)."""

    def status(weight: float, term: torch.Tensor | None) -> str:
        if weight == 0:
            return "weight0"
        return "trained" if term is None or term.grad_fn is not None else "constant"

    out = [("residual", status(config.w_residual, residual))]
    if out[0][1] == "trained" and not config.create_graph:  # the heat: u_t has a graph
        out[0] = ("residual", "partly")
    out.append(("position", status(config.w_initial, None)))
    if config.equation == "wave":
        out.append(("velocity", status(config.w_initial, velocity)))
    out.append(("boundary", status(config.w_boundary, None)))
    return tuple(out)


def _medians(calls: dict[str, Callable[[], object]], rounds: int) -> dict[str, float]:
    """Median seconds of each call over ``rounds`` interleaved rounds (one call of each per
    round), so that a busy moment of the machine hits every call alike."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    return {name: float(np.median(t)) for name, t in times.items()}


def _step_costs(params, config, inner, initial, boundary, rounds: int = 11) -> dict[str, float]:
    """Seconds of one forward and backward pass of the PINN loss and of a plain regression of
    the same network onto the exact solution at the same points (interleaved medians)."""
    keep = replace(config, create_graph=True)
    xt = torch.cat([inner.detach(), initial.detach(), boundary])
    x, t = xt[:, 0].numpy(), xt[:, 1].numpy()
    target = torch.tensor(exact_solution(config, x, t))

    def pinn_step() -> None:
        sum(_loss_terms(params, keep, inner, initial, boundary)).backward()

    def plain_step() -> None:
        (mlp(params, xt) - target).pow(2).mean().backward()

    pinn_step(), plain_step()  # once each before timing: the first call sets things up
    medians = _medians({"pinn": pinn_step, "plain": plain_step}, rounds)
    for p in params:
        p.grad = None
    return medians


def second_derivative_costs(params, config, inner, rounds: int = 11) -> dict[str, float]:
    """The residual's second derivatives at the interior points two ways, timed side by side.

    The residual needs only the diagonal of the Hessian of u in its inputs (x, t): u_xx for
    the heat, u_xx and u_tt for the wave (for u_xx + u_yy it would be the trace of the Hessian
    in (x, y): again its diagonal). ``vmap(hessian(u_at))`` computes all d² = 4 entries, u_xt
    and u_tx included; the diagonal takes, per entry needed, one product H eᵢ (the gradient of
    ∂u/∂xᵢ) and keeps its i-th entry: 1 product per point for the heat, 2 for the wave, against
    d = 2 for the whole Hessian. Returns the interleaved median seconds of each, the entries
    the diagonal computed and their largest difference from the whole Hessian's."""
    xt = inner.detach()
    needed = (0,) if config.equation == "heat" else (0, 1)  # u_xx; the wave's u_xx and u_tt

    def u_at(p):
        return mlp(params, p[None])[0]

    def whole() -> torch.Tensor:
        return vmap(hessian(u_at))(xt)  # (N, 2, 2): every second derivative

    def diagonal() -> torch.Tensor:  # (N, entries): row i of H is the gradient of ∂u/∂xᵢ
        return torch.stack(
            [vmap(grad(lambda p, i=i: grad(u_at)(p)[i]))(xt)[:, i] for i in needed], dim=1
        )

    with warnings.catch_warnings():  # torch's first jvp (in hessian) loads decompositions
        warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated", DeprecationWarning)
        full = whole()
    gap = float((full[:, needed, needed] - diagonal()).abs().max().detach())
    medians = _medians({"hessian": whole, "diagonal": diagonal}, rounds)
    return {**medians, "entries": len(needed), "gap": gap}


# %% Training, then the network on a grid against the exact solution
@dataclass(frozen=True)
class PinnRun:
    """A trained physics-informed network and how well it solves its equation.

    Attributes:
        xs, ts: the grid (GRID points each); u, exact, residual: shape (GRID, GRID), row i at
            time ts[i]: the network, the exact solution, the PDE residual of the network.
        losses: the weighted loss before each step; terms: (steps, 3) the unweighted residual,
            initial and boundary terms before each step (up to the first non-finite loss).
        max_error, rel_error: max |u − exact| and ‖u − exact‖ / ‖exact‖ on the grid.
        residual_rms: the root-mean-square residual on the grid.
        residual_grad: ‖∂(residual term)/∂θ‖ at the start, as the run's graph gives it: exactly
            0 for the wave without create_graph (the term has no grad_fn); for the heat without
            it, the gradient through u_t alone (u_xx is a constant).
        velocity: the wave's u_t(x, 0)² term (part of the initial term) before each step; empty
            for the heat. velocity_grad: its gradient's norm at the start (NaN for the heat).
        fit: per term of the loss ("residual", "position" u(x, 0) = sin(πx), "velocity"
            u_t(x, 0) = 0 for the wave, "boundary"), what the optimiser could do with it:
            "trained" (weight above 0 and a whole path to the weights), "partly" (the heat
            residual without create_graph: through u_t only), "constant" (taken without
            create_graph: no grad_fn, gradient exactly 0) or "weight0".
        omission_error: without create_graph, what PyTorch raises when the flag is dropped
            and retain_graph=True is not added either (its message, word for word); "" with it.
        status: "ok" or "diverged" (stopped at the first non-finite loss, step ``stopped_at``).
        pinn_step_seconds, plain_step_seconds: one forward and backward pass of the PINN loss,
            and of a plain regression of the same network onto the exact u at the same points
            (medians of interleaved rounds).
        hessian_seconds, diagonal_seconds, diagonal_entries, diagonal_gap: the residual's
            second derivatives at the interior points by ``vmap(hessian)`` (all 4 entries) and
            as the Hessian's diagonal (``diagonal_entries`` products per point), their median
            seconds and largest difference (:func:`second_derivative_costs`).
    """

    config: PinnConfig
    parameters: int
    xs: np.ndarray
    ts: np.ndarray
    u: np.ndarray
    exact: np.ndarray
    residual: np.ndarray
    losses: np.ndarray
    terms: np.ndarray
    max_error: float
    rel_error: float
    residual_rms: float
    residual_grad: float
    status: str
    stopped_at: int | None
    pinn_step_seconds: float
    plain_step_seconds: float
    seconds: float
    velocity: np.ndarray
    velocity_grad: float
    fit: tuple[tuple[str, str], ...]
    omission_error: str
    hessian_seconds: float
    diagonal_seconds: float
    diagonal_entries: int
    diagonal_gap: float


def run(
    config: PinnConfig, progress: Callable[[int, int], None] | None = None, func: bool = False
) -> PinnRun:
    """Train the physics-informed network of ``config`` with Adam and measure it on the grid.

    Args:
        config: the equation, the network, the points, the loss's weights and the flag.
        progress: called as ``progress(done, total)`` in steps, about 50 times in all.
        func: take the input derivatives of the loss by torch.func (:func:`terms_func`)
            instead of ``torch.autograd.grad`` (:func:`terms`); the same numbers up to rounding.
    """
    gen = torch.Generator().manual_seed(int(config.seed))
    params = network_parameters(network_sizes(config), gen)
    n = sum(p.numel() for p in params)
    inner, initial, boundary = _points(config, gen)
    weights = _weights(config)
    costs = _step_costs(params, config, inner, initial, boundary)
    second = second_derivative_costs(params, config, inner)
    parts: dict = {}
    first = _loss_terms(params, config, inner, initial, boundary, parts, func=func)[0]

    def grad_norm(term: torch.Tensor) -> float:  # 0 for a term without grad_fn: a constant
        if not term.requires_grad:
            return 0.0
        grads = torch.autograd.grad(term, params, allow_unused=True, retain_graph=True)
        return math.sqrt(sum(float(g.pow(2).sum()) for g in grads if g is not None))

    residual_grad = grad_norm(first)
    velocity_grad = grad_norm(parts["velocity"]) if "velocity" in parts else math.nan
    fit = _fit(config, first, parts.get("velocity"))
    omission = (
        "" if config.create_graph else _omission_error(params, config, inner, initial, boundary)
    )

    opt = torch.optim.Adam(params, lr=config.lr)
    start, losses, parts, status, stopped = time.perf_counter(), [], [], "ok", None
    velocities = []
    for step in range(config.steps):
        got: dict = {}
        three = _loss_terms(params, config, inner, initial, boundary, got, func=func)
        loss = sum(w * term for w, term in zip(weights, three, strict=True))
        losses.append(float(loss.detach()))
        if not math.isfinite(losses[-1]):
            status, stopped = "diverged", step
            losses.pop()
            break
        parts.append([float(term.detach()) for term in three])
        if "velocity" in got:
            velocities.append(float(got["velocity"].detach()))
        opt.zero_grad()
        loss.backward()  # <-- differentiates the input derivatives again, by the weights
        opt.step()
        if progress is not None and (step + 1) % max(1, config.steps // 50) == 0:
            progress(step + 1, config.steps)
    seconds = time.perf_counter() - start

    xs = np.linspace(0.0, 1.0, GRID)
    ts = np.linspace(0.0, config.t_max, GRID)
    xx, tt = np.meshgrid(xs, ts)  # row i: time ts[i]
    grid = torch.tensor(np.stack([xx.ravel(), tt.ravel()], 1), requires_grad=True)
    u = mlp(params, grid)
    r = terms(u, grid, config.equation, config.coefficient, True)
    u = u.detach().numpy().reshape(GRID, GRID)
    r = r.detach().numpy().reshape(GRID, GRID)
    exact = exact_solution(config, xx, tt)
    with np.errstate(invalid="ignore", over="ignore"):
        max_error = float(np.abs(u - exact).max())
        rel_error = float(np.linalg.norm(u - exact) / np.linalg.norm(exact))
        rms = float(np.sqrt(np.mean(r**2)))
    return PinnRun(
        config,
        n,
        xs,
        ts,
        u,
        exact,
        r,
        np.array(losses),
        np.array(parts).reshape(-1, 3),
        max_error,
        rel_error,
        rms,
        residual_grad,
        status,
        stopped,
        costs["pinn"],
        costs["plain"],
        seconds,
        np.array(velocities),
        velocity_grad,
        fit,
        omission,
        second["hessian"],
        second["diagonal"],
        second["entries"],
        second["gap"],
    )


def fit_summary(run: PinnRun) -> tuple[tuple[str, str, float, float], ...]:
    """Per term of the loss: (term, what the optimiser could do with it (``run.fit``), its
    unweighted value before the first step, before the last). The wave's u(x, 0) term is
    the initial term less its u_t(x, 0)² part."""
    if not len(run.terms):
        return ()
    columns = {
        "residual": run.terms[:, 0],
        "position": run.terms[:, 1],
        "boundary": run.terms[:, 2],
    }
    if run.velocity.size:
        columns["velocity"] = run.velocity
        columns["position"] = run.terms[:, 1] - run.velocity
    return tuple(
        (term, how, float(columns[term][0]), float(columns[term][-1])) for term, how in run.fit
    )


# %% What the page shows, one "name value ..." line each
def report(result: PinnRun) -> None:
    """Print the run's numbers: the errors on the grid, the residual's gradient at the start,
    what each term of the loss did, the loss before each step, the cost of a step (seconds
    vary from run to run, the rest does not) and, without create_graph, what PyTorch raises
    when retain_graph=True is left out too."""
    print("parameters", result.parameters)
    print("status", result.status)
    print("max_error", result.max_error)
    print("rel_error", result.rel_error)
    print("residual_rms", result.residual_rms)
    print("residual_grad", result.residual_grad)
    for term, how, before, after in fit_summary(result):
        print("fit_" + term, how, before, after)  # what the optimiser could do with it
    print("loss", *result.losses.tolist())
    print(
        "seconds", result.pinn_step_seconds, result.plain_step_seconds
    )  # a PINN step, a plain one
    print(
        "second_derivatives",
        result.hessian_seconds,
        result.diagonal_seconds,
        result.diagonal_entries,
        result.diagonal_gap,
    )  # whole Hessian, its diagonal
    if result.omission_error:
        print("omission_error", result.omission_error.splitlines()[0])


# %% Run it
if __name__ == "__main__":
    # the settings: the page's download writes its own on the next two lines
    config = PinnConfig()
    func = False  # or True: the same input derivatives by torch.func (terms_func)
    torch.set_num_threads(1)  # tensors this small: a second thread only adds waiting
    result = run(config, func=func)
    report(result)
