"""The HVP lab's cached calls: the typed function explored at a point (``explore``, which the
lesson draws too: hograd_labs/hvp/embed.py), H v three ways (timed),
the small network trained and its loss analysed from Hessian-vector products."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import replace

import streamlit as st

from hograd_core import BudgetError, curvature, network, parse
from hograd_core.applications.common import Code, marked_code
from hograd_serving.cached import FORWARD_AD
from hograd_serving.jobs import network_job

from . import compute
from .compute import HvpConfig, NetCurvature, TrainedNet

__all__ = [
    "POWER_STEPS",
    "analysed",
    "check_analysis",
    "explore",
    "page_config",
    "script",
    "three_ways",
    "trained",
]

#: steps of the animated power iteration on a typed function
POWER_STEPS = 30


@st.cache_data(max_entries=64, show_spinner=False)
def explore(text: str, point: tuple, vector: tuple, radius: float) -> curvature.Exploration:
    """Without the three ways (:func:`three_ways`): every slider move reruns this."""
    fn = parse(text)
    return curvature.explore(
        fn, point, vector, radius=radius, power_steps=POWER_STEPS, with_ways=False
    )


@st.cache_data(max_entries=64, show_spinner=False)
def three_ways(text: str, point: tuple, vector: tuple) -> curvature.ThreeWays:
    """H v three ways, timed: 15 interleaved rounds, ~40 ms. Only for the tab that shows it.

    The whole timing loop holds the forward-AD lock (one level per process), so no time is
    spent waiting for it inside a measurement (a loop takes a few milliseconds).
    """
    with FORWARD_AD:
        return curvature.hvp_three_ways(parse(text), point, vector)


def page_config(run: tuple) -> HvpConfig:
    """The compute module's config for ``run`` (dataset, hidden, steps, seed, top_k, power
    steps, probes), with the analysis limits of :data:`~hograd_core.network.NETWORK_BUDGET`."""
    dataset, hidden, steps, seed, top_k, power, probes = run
    b = network.NETWORK_BUDGET
    config = HvpConfig(
        dataset,
        tuple(hidden),
        int(steps),
        seed=int(seed),
        top_k=int(top_k),
        power_steps=int(power),
        probes=int(probes),
        full_hessian_max=b.full_hessian_max,
        lanczos_hvps=b.max_lanczos_hvps,
    )
    n = network.count_parameters(network.NetConfig(config.dataset, config.hidden))
    return replace(config, examples=network.analysis_examples(n))


def check_analysis(config: HvpConfig) -> None:
    """Refuse an analysis over the budget, before any work.

    Raises:
        ArgumentError, BudgetError: a setting outside its range, or more HVPs than the model's
            size allows (:func:`hograd_core.network.analysis_limit`).
    """
    b = network.NETWORK_BUDGET
    network.check_config(
        network.NetConfig(config.dataset, config.hidden, config.steps, seed=config.seed)
    )
    n = network.count_parameters(network.NetConfig(config.dataset, config.hidden))
    network.check_range("hvp.net.budget.top_k", config.top_k, 1, min(b.max_top_k, n - 1))
    network.check_range("hvp.net.budget.power_steps", config.power_steps, 1, b.max_power_steps)
    network.check_range("hvp.net.budget.probes", config.probes, 2, b.max_probes)
    asked, most = config.power_steps + config.probes, network.analysis_limit(n)
    if asked > most:
        raise BudgetError("hvp.net.budget.hvps", n=f"{n:,}", most=most, got=asked)


# The lines of compute.py's ``__main__`` that the download fills in (each must occur once).
_CONFIG = "    config = HvpConfig()\n"
_HESSIAN = "    hessian = KeptGraph  # or FuncHessian: the same H v by torch.func (jvp of grad)\n"
_FUNC = "    hessian = FuncHessian  # torch.func: jvp of grad, no graph kept between products\n"


def script(run: tuple, func: bool = False) -> Code:
    """The download: compute.py as it is, with ``run``'s settings written where its
    ``__main__`` sets them and (``func``) H v taken by torch.func.

    Raises:
        ArgumentError, BudgetError: as :func:`check_analysis`.
    """
    config = page_config(run)
    check_analysis(config)
    source = inspect.getsource(compute)
    swaps = [(_CONFIG, f"    config = {config!r}\n")] + ([(_HESSIAN, _FUNC)] if func else [])
    for old, new in swaps:
        assert source.count(old) == 1, f"compute.py's __main__ no longer has {old.strip()!r}"
        source = source.replace(old, new)
    return marked_code(source)


@st.cache_data(max_entries=8, show_spinner=False)
def trained(
    dataset: str,
    hidden: tuple,
    steps: int,
    seed: int,
    _caption: Callable[[int, int, str], str] = lambda step, total, loss: f"{step}/{total}",
) -> TrainedNet:
    """The network trained inside the heavy-work gate, with a progress bar whose text is
    ``_caption(step, total, loss)`` (the page's words; not part of the cache key). Training
    and analysis are bounded by counted work, decided before they start (about 1 s each for
    the heaviest settings on an idle server).

    Raises:
        ArgumentError, BudgetError: as :func:`hograd_core.network.check_config`.
    """
    config = HvpConfig(dataset, tuple(hidden), int(steps), seed=int(seed))
    network.check_config(network.NetConfig(dataset, tuple(hidden), int(steps), seed=int(seed)))
    bar = st.progress(0.0, text=_caption(0, steps, "…"))

    def progress(step: int, total: int, loss: float) -> None:
        bar.progress(step / total, text=_caption(step, total, f"{loss:.4f}"))

    try:
        return network_job(lambda: compute.train(config, progress))
    finally:
        bar.empty()


@st.cache_data(max_entries=8, show_spinner=False)
def analysed(
    key: tuple, top_k: int, power_steps: int, probes: int, _net: TrainedNet
) -> NetCurvature:
    """Keyed by the training settings in ``key``; the trained net itself is not hashed. What
    it computes depends on the net and the settings only (no time limit).

    Raises:
        ArgumentError, BudgetError: as :func:`check_analysis`.
    """
    config = page_config((*key, top_k, power_steps, probes))
    check_analysis(config)
    return network_job(lambda: compute.analyse(config, _net))
