"""hograd_serving.sympy_column: sympy's derivatives worked out in a child process per function,
checked against sympy's own diff and evalf run here, against the seed example, and for the
limits that keep one function from stalling a class (killed on time, bounded memory, sessions
served in turn)."""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys
import threading

import pytest
import sympy as sp

from hograd_serving import sympy_column as sc
from hograd_serving.exact import RETRIES
from hograd_serving.exact import Children as Pool
from hograd_serving.exact_child import work

X = sp.Symbol("x", real=True)
WAIT = 120.0  # a hang detector, not a speed goal: a child answers in about a second
#: The child's wall-clock limit where a test expects an answer or a stop by size or memory: so
#: long that a slow, busy machine never turns the outcome into "time" (the default, 10 s, can
#: pass while the child is still importing sympy there).
ROOMY = 600.0


def exact(expr: sp.Expr, order: int, x0: float) -> list[float]:
    """The oracle: sympy's diff here, evaluated by evalf (not the program the child writes)."""
    return [
        float(sp.diff(expr, X, k).evalf(30, subs={X: sp.Float(x0, 30)})) for k in range(order + 1)
    ]


def test_the_seed_example() -> None:
    """d/dx x³ at 2 is 12, and so is the second derivative; worked out in a child process."""
    column = sc.SympyColumn(chain_seconds=ROOMY)
    done = column.ask("x**3", 2, 2.0, wait=WAIT)
    assert done.values == (8.0, 12.0, 12.0) and not done.working and done.stopped is None
    assert done.latex == ("x^{3}", "3 x^{2}", "6 x")
    assert column.started == 1


@pytest.mark.parametrize(
    ("text", "expr", "order", "x0"),
    [
        ("sin(x)*exp(-x^2)", sp.sin(X) * sp.exp(-(X**2)), 6, 0.7),
        ("1/(1+x^2)", 1 / (1 + X**2), 8, -0.4),
        ("log(1+x^2)*atan(x)", sp.log(1 + X**2) * sp.atan(X), 5, 1.3),
        ("abs(abs(x-2)-1)**3", sp.Abs(sp.Abs(X - 2) - 1) ** 3, 4, 0.3),  # away from the kinks
    ],
)
def test_values_agree_with_sympy_here(text: str, expr: sp.Expr, order: int, x0: float) -> None:
    done = sc.SympyColumn(chain_seconds=ROOMY).ask(text, order, x0, wait=WAIT)
    assert not done.working and done.stopped is None
    assert done.values == pytest.approx(exact(expr, order, x0), rel=1e-13, abs=1e-13)


def test_a_lower_order_and_another_point_need_no_new_child() -> None:
    column = sc.SympyColumn(chain_seconds=ROOMY)
    high = column.ask("tanh(x)", 6, 0.5, wait=WAIT)
    low = column.ask("tanh(x)", 3, 0.5, wait=WAIT)
    elsewhere = column.ask("tanh(x)", 6, -1.25, wait=WAIT)
    assert low.values == high.values[:4]
    assert elsewhere.values == pytest.approx(exact(sp.tanh(X), 6, -1.25), rel=1e-13, abs=1e-15)
    assert column.started == 1


def test_a_higher_order_than_the_child_was_asked_for_starts_another() -> None:
    column = sc.SympyColumn(chain_seconds=ROOMY)
    column.ask("sin(x)", 2, 0.5, wait=WAIT)
    more = column.ask("sin(x)", sc.FIRST_ORDERS + 3, 0.5, wait=WAIT)
    assert len(more.values) == sc.FIRST_ORDERS + 4 and not more.working
    assert more.values[-1] == pytest.approx(math.cos(0.5))  # sin^(13) = cos
    assert column.started == 2


def test_a_swelling_expression_stops_by_size_and_says_so() -> None:
    done = sc.SympyColumn(chain_seconds=ROOMY).ask("tanh(x)", 30, 0.5, wait=WAIT)
    assert done.stopped == "size" and not done.working
    assert 2 < len(done.values) < 31


# ---- the hostile corpus: each family bounded before sympy starts, or stopped from outside ----

#: Each folds to a constant power or exponential that sympy would compute as an exact integer
#: of about 10^12 bits (a C call that nothing interrupts), through a variable that cancels.
FOLDED_POWERS = [
    "x+(0*x+2)**-(999999*999999)",
    "x+(x-x+2)**(999999*999999)",
    "x+(x/x*3)**(999999*999999)",
    "(3*x)**(999999*999999)",
    "x*exp(999999*999999*log(2+0*x))",
    "x+sigmoid(-999999*999999*log(x/x*3))",
    "x+((0*x+2)**999999)**999999",
    "x+(0*x+999999)**-999999",
]
#: Nested kinks: as sympy Piecewise each level multiplied the conditions (depth 5: ~450 s).
NESTED_KINKS = [
    "abs(abs(abs(abs(abs(abs(x-2)-1)-1)-1)-1)-1)",
    "abs(x-abs(x-abs(x-abs(x-abs(x-1)))))",
    "relu(relu(relu(relu(relu(relu(x)-1)-1)-1)-1)-1)",
    "(x+1+abs(x-1))/2+(abs(x+abs(x-abs(x+abs(x-1)))))",  # max-like
]


def RELU(a: float) -> float:  # named as the function language names it
    return max(a, 0.0)


def SIGMOID(a: float) -> float:
    return 1 / (1 + math.exp(-a)) if a > -700 else 0.0


def python_value(text: str, x: float) -> float:
    """The function's value by plain Python floats: an oracle independent of sympy."""
    return eval(  # our own test corpus, not user input
        text.replace("^", "**"),
        {"abs": abs, "relu": RELU, "exp": math.exp, "log": math.log, "sigmoid": SIGMOID},
        {"x": x},
    )


@pytest.mark.parametrize("text", FOLDED_POWERS + NESTED_KINKS)
def test_a_hostile_function_gets_its_column_and_the_child_ends(text: str) -> None:
    """Each finishes or is stopped: never a hang of this process (the child is another) and
    never an exception. Where it finishes, f and f' agree with plain floats and a central
    difference at a point away from every kink."""
    x0 = 0.37
    done = sc.SympyColumn().ask(text, 3, x0, wait=WAIT)
    assert not done.working
    if done.stopped is None:
        try:
            f0 = python_value(text, x0)
        except OverflowError:
            return  # a float overflow in the oracle itself: sympy's value is not comparable
        h = 1e-6
        slope = (python_value(text, x0 + h) - python_value(text, x0 - h)) / (2 * h)
        assert done.values[0] == pytest.approx(f0, rel=1e-12, abs=1e-12)
        assert done.values[1] == pytest.approx(slope, rel=1e-6, abs=1e-6)


@pytest.mark.parametrize("text", NESTED_KINKS)
def test_nested_kinks_differentiate_in_linear_size(text: str) -> None:
    """Each derivative of a nested abs or relu is a product of signs or steps: its size grows
    with the depth, not exponentially (a Piecewise nesting gave thousands of operations)."""
    out = io.StringIO()
    work(text, 3, out)
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert all("stopped" not in r for r in records)
    assert max(r["ops"] for r in records) < 20 * text.count("(")


def test_a_child_that_does_not_answer_in_time_is_killed_and_the_page_told() -> None:
    """The child here sleeps instead of working: the column kills it at its wall-clock limit,
    says "time", and the slot is free for the next function."""

    def sleeper(seconds: float, memory: int) -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, "-c", "import time; time.sleep(600)"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    column = sc.SympyColumn(chain_seconds=0.5, launch=sleeper, slots=1)
    done = column.ask("x**3", 2, 2.0, wait=WAIT)
    assert done.stopped == "time" and not done.working and done.values == ()
    assert column._running == 0


def _sleeper(seconds: float, memory: int) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(600)"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def test_a_function_stopped_by_time_is_worked_out_again_while_a_slot_is_free() -> None:
    """A busy host can starve a child that would finish: its function is tried again when
    asked while a slot is free (not while every slot is held), at most RETRIES times."""
    started: list[str] = []

    def launch(seconds: float, memory: int) -> subprocess.Popen:
        started.append("sleeper" if len(started) < RETRIES else "real")
        return _sleeper(seconds, memory) if started[-1] == "sleeper" else sc._launch(60, memory)

    pool = Pool(1)
    column = sc.SympyColumn(chain_seconds=0.5, launch=launch, slots=1, pool=pool)
    assert column.ask("x**3", 2, 2.0, wait=WAIT).stopped == "time"
    pool.acquire()  # every slot of the pool held by someone else: the stop stands
    assert column.ask("x**3", 2, 2.0, wait=WAIT).stopped == "time" and len(started) == 1
    pool.release()
    for _ in range(RETRIES - 1):  # tried again, stopped again by the sleeper
        assert column.ask("x**3", 2, 2.0, wait=WAIT).stopped == "time"
    assert len(started) == RETRIES
    column.chain_seconds = ROOMY
    done = column.ask("x**3", 2, 2.0, wait=WAIT)  # the last retry: a child that answers
    assert done.stopped is None and done.values == pytest.approx([8.0, 12.0, 12.0])
    assert started == ["sleeper"] * RETRIES + ["real"]


def test_a_function_stopped_by_time_is_tried_at_most_retries_more_times() -> None:
    count = [0]

    def launch(seconds: float, memory: int) -> subprocess.Popen:
        count[0] += 1
        return _sleeper(seconds, memory)

    column = sc.SympyColumn(chain_seconds=0.5, launch=launch, slots=1, pool=Pool(1))
    for _ in range(RETRIES + 3):
        assert column.ask("x**4", 2, 2.0, wait=WAIT).stopped == "time"
    assert count[0] == 1 + RETRIES


def test_a_child_past_its_memory_says_memory() -> None:
    """With a budget of 1 MB beyond its imports, sympy's first allocations fail: the child
    reports "memory" rather than growing."""
    column = sc.SympyColumn(chain_seconds=ROOMY, memory=2**20)
    done = column.ask("sin(x)*exp(-x^2)", 20, 0.5, wait=WAIT)
    # "memory" when sympy's own allocation fails; "error" (exit status) when the limit strikes
    # the child's interpreter outside sympy, before it can write a word
    assert done.stopped in {"memory", "error"} and not done.working
    assert len(done.values) < 21  # what it had before the limit struck is kept
    roomy = sc.SympyColumn(chain_seconds=ROOMY, memory=sc.MEMORY_BYTES).ask(
        "sin(x)*exp(-x^2)", 20, 0.5, wait=WAIT
    )
    assert roomy.stopped is None and len(roomy.values) == 21


# ---- fairness, with children that finish when the test says --------------------------------


class HeldChild:
    """A stand-in for the child process: it answers f = 0 at order 0..target when released."""

    def __init__(self, owner: Children) -> None:
        self.owner, self.released, self.returncode = owner, threading.Event(), None
        self.stdin = self
        self.stdout = self
        self._lines: list[str] | None = None

    def write(self, text: str) -> None:
        self.request = json.loads(text)
        with self.owner.changed:
            self.owner.log.append(self.request["text"])
            self.owner.changed.notify_all()

    def close(self) -> None:
        pass

    def readline(self, limit: int = -1) -> str:
        self.released.wait(WAIT)
        if self._lines is None:
            zero = [["num", 0, 1]]
            self._lines = [
                json.dumps(
                    {
                        "k": k,
                        "code": zero if k == 0 else [],
                        "out": 0,
                        "ops": 0,
                        "latex": "0",
                        "ms": 0.0,
                    }
                )
                + "\n"
                for k in range(self.request["order"] + 1)
            ]
        return self._lines.pop(0) if self._lines else ""

    def kill(self) -> None:
        self.returncode = self.returncode if self.returncode is not None else 0

    def wait(self) -> int:
        return self.returncode or 0


class Children:
    def __init__(self) -> None:
        self.log: list[str] = []
        self.made: list[HeldChild] = []
        self.changed = threading.Condition()

    def __call__(self, seconds: float, memory: int) -> HeldChild:
        child = HeldChild(self)
        with self.changed:
            self.made.append(child)
            self.changed.notify_all()
        return child

    def started(self, n: int) -> list[HeldChild]:
        """The children, once ``n`` have been started and have read their requests."""
        with self.changed:
            assert self.changed.wait_for(lambda: len(self.log) >= n, WAIT)
            return list(self.made)


def test_waiting_sessions_are_served_in_turn_each_with_its_latest_function() -> None:
    """One slot. Session a starts f1, then asks for f2, f3 and f4 while f1 runs; session b asks
    for g1. When f1 is done, b's g1 goes before a's next, and a's next is f4 (its latest),
    never f2 or f3."""
    children = Children()
    column = sc.SympyColumn(chain_seconds=ROOMY, slots=1, launch=children)
    column.ask("x+1", 0, 0.0, who="a")
    first = children.started(1)[0]
    for text in ("x+2", "x+3", "x+4"):
        column.ask(text, 0, 0.0, who="a")
    column.ask("x+5", 0, 0.0, who="b")
    first.released.set()
    children.started(2)[1].released.set()
    children.started(3)[2].released.set()
    assert column.ask("x+4", 0, 0.0, wait=WAIT, who="a").values == (0.0,)
    assert children.log == ["x+1", "x+5", "x+4"]


def test_one_session_starts_at_most_its_share_of_children_a_minute() -> None:
    children = Children()
    now = [0.0]
    column = sc.SympyColumn(
        chain_seconds=ROOMY,
        slots=4,
        launch=children,
        starts_per_minute=2,
        clock=lambda: now[0],
        pool=Pool(4),  # not the server's pool of 2: three children at once here
    )
    for text in ("x+1", "x+2", "x+3"):
        column.ask(text, 0, 0.0, who="a")
    column.ask("x+9", 0, 0.0, who="b")  # another session is not held back by a's minute
    assert children.started(3) and sorted(children.log) == ["x+1", "x+2", "x+9"]
    assert column.ask("x+3", 0, 0.0, who="a").working  # waiting for a's minute
    now[0] = 61.0
    column.ask("x+3", 0, 0.0, who="a")
    assert children.started(4) and children.log[-1] == "x+3"
    for child in children.made:
        child.released.set()


def test_a_run_never_waits_for_a_child_beyond_its_own_wait() -> None:
    """The column answers "working" while the child works: a script run is never held by it."""
    children = Children()
    column = sc.SympyColumn(chain_seconds=ROOMY, launch=children)
    view = column.ask("x**2", 3, 1.0, wait=0.0, who="a")
    assert view.working and view.values == ()
    child = children.started(1)[0]
    child.released.set()
    assert not column.ask("x**2", 3, 1.0, wait=WAIT, who="a").working
