"""What the flag lab says about PyTorch, checked against PyTorch (issue 14).

Each claim a text makes is run here with plain torch calls, written out in the test (not
through hograd), and the explanation the lab chooses is checked against what torch did and
against what the real graph holds: a backward function's ``_saved_*`` attributes.
"""

from __future__ import annotations

import pytest
import torch

from hograd_core import parse
from hograd_core.flaglab.cases import run_case
from hograd_core.flaglab.flags import FlagSettings, run_flags
from hograd_ui.i18n import catalogue, tr
from tests.graph_walk import walk

EXPLAIN = "graph.flag.explain."
FIX = "graph.flag.fix."


def leaf(value: float) -> torch.Tensor:
    return torch.tensor(value, dtype=torch.float64, requires_grad=True)


def saved_of(fn: object) -> list[str]:
    """``Op.attr`` for every tensor one backward function saved (read on a fresh graph)."""
    found = []
    for attr in dir(fn):
        if not attr.startswith("_saved_"):
            continue
        value = getattr(fn, attr)
        items = value if isinstance(value, tuple) else (value,)
        if any(torch.is_tensor(item) for item in items):
            found.append(f"{type(fn).__name__}.{attr[len('_saved_') :]}")
    return found


def saved_by(root: object) -> list[str]:
    """``Op.attr`` for every tensor a backward function of the graph saved."""
    return [slot for fn in walk(root) for slot in saved_of(fn)]


# ---- item 1: without create_graph, grad returns a tensor with no history ---------------------


def test_grad_without_create_graph_returns_a_tensor_with_no_history() -> None:
    x = leaf(2.0)
    (dy,) = torch.autograd.grad(x**3, x)
    assert torch.is_tensor(dy) and float(dy) == 12.0  # a tensor, with the right value
    assert dy.requires_grad is False and dy.grad_fn is None  # and no history
    en, zh = (catalogue(lang)[EXPLAIN + "no_create_graph"] for lang in ("en", "zh"))
    assert "plain number" not in en and "普通数值" not in zh
    assert "`dy.requires_grad` is False" in en and "`dy.grad_fn` is None" in en
    assert "`dy.requires_grad` 为 False" in zh and "`dy.grad_fn` 为 None" in zh
    # the lab's own run reports the same tensor
    outcome = run_case("no_create_graph", "off")
    (report,) = outcome.steps[1].results
    assert (report.name, report.value, report.requires_grad, report.grad_fn) == (
        "dy",
        12.0,
        False,
        "",
    )
    assert outcome.explain == (EXPLAIN + "no_create_graph",)


# ---- item 2: a second call on an unretained graph, explained by what the graph saved ---------

FUNCTIONS = ["x + 1", "-x", "2*x", "x**3", "sin(x)"]
UNRETAINED = [
    {},  # retain_graph defaults to create_graph, False
    {"retain_graph": False},
    {"create_graph": True, "retain_graph": False},
]


def second_call_runs(text: str, flags: dict) -> bool:
    """torch itself: grad of y twice on one graph, the first call with ``flags``."""
    x = leaf(0.7)
    y = parse(text).torch({"x": x})
    torch.autograd.grad(y, x, **flags)
    try:
        torch.autograd.grad(y, x)
    except RuntimeError as err:
        assert "second time" in str(err)
        return False
    return True


@pytest.mark.parametrize("flags", UNRETAINED)
@pytest.mark.parametrize("text", FUNCTIONS)
def test_second_call_is_explained_by_what_the_graph_saved(text: str, flags: dict) -> None:
    x = leaf(0.7)
    saved = saved_by(parse(text).torch({"x": x}).grad_fn)
    runs = second_call_runs(text, flags)
    assert runs == (not saved), (text, saved)  # torch: nothing saved, nothing to free
    outcome = run_flags(parse(text), 0.7, FlagSettings(action="again", **flags))
    assert outcome.raised == (not runs)
    params = dict(outcome.params)
    if runs:
        assert outcome.explain[0] == EXPLAIN + "nothing_saved"
        assert not {EXPLAIN + "retain_default", EXPLAIN + "retained"} & set(outcome.explain)
        ops = {type(fn).__name__ for fn in walk(parse(text).torch({"x": leaf(0.7)}).grad_fn)}
        assert set(params["ops"].split(", ")) == ops
    else:
        assert outcome.explain[0] in (EXPLAIN + "freed_default", EXPLAIN + "freed_explicit")
        assert EXPLAIN + "freed_here" in outcome.explain
        for slot in saved:  # e.g. PowBackward0.self: the tensor the first call freed
            op, attr = slot.split(".")
            assert f"{op} ({attr})" in params["freed"]
        # "reading one now raises the same error": read them after a first call
        x = leaf(0.7)
        y = parse(text).torch({"x": x})
        owners = {fn: saved_of(fn) for fn in walk(y.grad_fn) if saved_of(fn)}
        torch.autograd.grad(y, x, **flags)
        for fn, slots in owners.items():
            for slot in slots:
                with pytest.raises(RuntimeError, match="through the graph a second time"):
                    getattr(fn, "_saved_" + slot.split(".")[1])
        assert outcome.error.startswith("Trying to backward through the graph a second time")
    for key in outcome.explain:
        assert tr(key, "en", **params) and tr(key, "zh", **params)


@pytest.mark.parametrize("text", FUNCTIONS)
def test_backward_twice_is_explained_the_same_way(text: str) -> None:
    x = leaf(0.7)
    y = parse(text).torch({"x": x})
    saved = saved_by(y.grad_fn)
    y.backward()
    try:
        y.backward()
        runs = True
    except RuntimeError:
        runs = False
    assert runs == (not saved)
    outcome = run_flags(parse(text), 0.7, FlagSettings(action="backward"))
    assert outcome.raised == (not runs)
    assert (EXPLAIN + "nothing_saved" in outcome.explain) == runs


def test_retained_graph_is_credited_only_when_it_was_retained() -> None:
    kept = run_flags(parse("x**3"), 0.7, FlagSettings(create_graph=True, action="again"))
    assert kept.explain[0] == EXPLAIN + "retain_default"
    kept = run_flags(parse("x + 1"), 0.7, FlagSettings(retain_graph=True, action="again"))
    assert kept.explain[0] == EXPLAIN + "retained"


@pytest.mark.parametrize("text", ["x**3", "sin(x)", "tanh(x)", "exp(x)"])
def test_next_derivative_after_freeing_depends_on_the_graph_of_dy(text: str) -> None:
    """retain_graph=False frees the forward graph's saved tensors; the next derivative fails
    exactly when the graph of dy leads back to a node whose saved tensors were freed."""
    x = leaf(0.7)
    y = parse(text).torch({"x": x})
    forward = [fn for fn in walk(y.grad_fn) if saved_of(fn)]
    (dy,) = torch.autograd.grad(y, x, create_graph=True, retain_graph=False)
    reached = [fn for fn in walk(dy.grad_fn) if fn in forward]
    outcome = run_flags(parse(text), 0.7, FlagSettings(True, False, action="next"))
    assert outcome.raised == bool(reached), text
    if reached:
        assert outcome.explain[:2] == (EXPLAIN + "freed_forward", EXPLAIN + "freed_here")
    else:
        assert outcome.explain == (EXPLAIN + "next_ok", EXPLAIN + "not_needed")


# ---- item 3: the constant check is right only under its condition ----------------------------


def test_the_zero_fix_is_silently_wrong_when_create_graph_is_forgotten() -> None:
    x = leaf(2.0)
    (dy,) = torch.autograd.grad(x**3, x, create_graph=True)
    (d2y,) = torch.autograd.grad(dy, x)
    assert float(d2y) == 12.0  # the true second derivative of x**3 at 2
    outcome = run_case("constant_trap", "forgot")
    assert not outcome.raised
    printed = {r.name: r.value for step in outcome.steps for r in step.results}
    assert printed["dy"] == 12.0 and printed["d2y"] == 0.0  # the "fix" printed 0, not 12
    assert outcome.steps[1].output == ("tensor(12., dtype=torch.float64) False",)
    assert outcome.explain == (EXPLAIN + "fixed_forgot",)
    assert outcome.fixes == (FIX + "create_graph",)
    for lang in ("en", "zh"):
        assert "12" in tr(EXPLAIN + "fixed_forgot", lang) and "0" in tr(
            EXPLAIN + "fixed_forgot", lang
        )


class Cube(torch.autograd.Function):
    """x**3 with a hand-written backward that PyTorch cannot differentiate again."""

    @staticmethod
    def forward(ctx, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return grad * 3 * x**2


class DetachedCube(torch.autograd.Function):
    """x**3 whose backward is not marked, but uses x detached: its result has no graph."""

    @staticmethod
    def forward(ctx, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return grad * 3 * x.detach() ** 2


def test_the_rule_the_fix_text_states() -> None:
    """dy has a grad_fn when its backward used a tensor that requires grad; that is not the
    same as "the derivative is a constant", in either direction."""
    # A constant derivative that keeps a grad_fn: x**3's third derivative, 6.
    x = leaf(2.0)
    rows = [x**3]
    for _ in range(3):
        rows.append(torch.autograd.grad(rows[-1], x, create_graph=True)[0])
    assert float(rows[3].detach()) == 6.0 and rows[3].grad_fn is not None
    # A derivative that is not constant (3x²) and still has none: @once_differentiable.
    for x0 in (1.0, 2.0):
        x = leaf(x0)
        (dy,) = torch.autograd.grad(Cube.apply(x), x, create_graph=True)
        assert float(dy) == 3 * x0**2 and not dy.requires_grad
    # 2*x: its backward multiplies the incoming 1 by the saved 2; neither requires grad.
    x = leaf(1.5)
    y = 2 * x
    assert not y.grad_fn._saved_other.requires_grad
    (dy,) = torch.autograd.grad(y, x, create_graph=True)
    assert dy.grad_fn is None
    # Not marked at all, and still none: a backward that detaches its input (issue 36, item 8)
    for x0 in (1.0, 2.0):
        x = leaf(x0)
        (dy,) = torch.autograd.grad(DetachedCube.apply(x), x, create_graph=True)
        assert float(dy) == 3 * x0**2 and not dy.requires_grad
        assert 6 * x0 != 0  # f'' = 6x: False did not mean "the next derivative is 0"
    # so the text's condition is "every backward is itself differentiable", not a decorator
    en, zh = catalogue("en")[FIX + "constant"], catalogue("zh")[FIX + "constant"]
    assert "create_graph=True" in en and "once_differentiable" in en
    assert "every backward on the way is itself differentiable" in en and "detach()" in en
    assert "create_graph=True" in zh and "once_differentiable" in zh
    assert "每个反向函数本身都可以再求导" in zh and "detach()" in zh
    for key in ("explain.fixed_forgot",):
        assert "detach()" in catalogue("en")["graph.flag." + key]
        assert "detach()" in catalogue("zh")["graph.flag." + key]
    for key in ("constant_trap", "fixed_zero"):
        assert "requires grad" in catalogue("en")[EXPLAIN + key], key
    assert "6" in catalogue("en")[EXPLAIN + "constant_trap"]


# ---- the ReLU variants: which keep a graph, and whose convention at 0 ------------------------


def test_relu_variants_and_their_conventions_at_zero() -> None:
    variants = {
        "relu": torch.relu,
        "clamp": lambda x: torch.clamp(x, min=0.0),
        "where": lambda x: torch.where(x > 0, x, 0.0),
        "maximum": lambda x: torch.maximum(x, torch.zeros_like(x)),
    }
    at_zero = {}
    for name, f in variants.items():
        for x0 in (-1.0, 0.0, 1.5):
            x = leaf(x0)
            (dy,) = torch.autograd.grad(f(x), x, create_graph=True)
            assert (dy.grad_fn is not None) == (name == "relu"), (name, x0)  # only relu keeps one
            if x0 == 0.0:
                at_zero[name] = float(dy.detach())
    assert at_zero == {"relu": 0.0, "clamp": 1.0, "where": 0.0, "maximum": 0.5}
    en = catalogue("en")
    assert "`torch.relu` gives 0" in en[EXPLAIN + "relu_ok"]
    assert "clamp's derivative 1" in en[EXPLAIN + "relu_clamp"]
    assert "where's 0 and maximum's 0.5" in en[EXPLAIN + "relu_clamp"]
    zh = catalogue("zh")[EXPLAIN + "relu_clamp"]
    assert "取 1" in zh and "取 0，" in zh and "取 0.5" in zh


# ---- item 5: no server internals in the learner's texts --------------------------------------

INTERNALS = (
    "helper",
    "copy of",
    "fork",
    "Python process for this",
    "辅助进程",
    "复制",
    "独立 Python",
)


@pytest.mark.parametrize(
    "key",
    [
        "graph.flags.isolated",
        "graph.flags.isolated.warn_once",
        "graph.flags.isolated.anomaly",
        "budget.isolated_timeout",
        "budget.isolated_failed",
        "graph.busy",
    ],
)
def test_no_server_internals(key: str) -> None:
    for lang in ("en", "zh"):
        text = catalogue(lang)[key]
        assert not any(word in text for word in INTERNALS), (lang, key, text)
    assert "busy" in catalogue("en")["budget.isolated_timeout"]
    assert "{detail}" not in catalogue("en")["budget.isolated_failed"]


@pytest.mark.parametrize("action", ["again", "backward"])
@pytest.mark.parametrize("text", ["x", "(x)", "+x"])
def test_y_equal_to_x_has_no_graph_and_the_text_names_no_functions(text: str, action: str) -> None:
    """f = x: y is the leaf itself, with no grad_fn (plain PyTorch says so), so there are no
    functions to list; "these functions () saved none" is not said (issue 36, item 24)."""
    x = leaf(0.7)
    assert parse(text).torch({"x": x}).grad_fn is None
    settings = FlagSettings(create_graph=False, retain_graph=False, action=action)
    if action == "backward":
        settings = FlagSettings(action="backward")
    outcome = run_flags(parse(text), 0.7, settings)
    assert not outcome.raised
    assert outcome.explain[0] == EXPLAIN + "no_graph"
    assert EXPLAIN + "nothing_saved" not in outcome.explain
    for lang in ("en", "zh"):
        said = tr(outcome.explain[0], lang, **dict(outcome.params))  # why the call ran
        assert "()" not in said and "（）" not in said
