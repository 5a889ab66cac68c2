"""Worst CPU time and memory, per page that computes exact values, that issue 45's hostile
corpus reaches in the server process (this one, running the pages under AppTest) and in the
exact maths' children (their CPU time, from RUSAGE_CHILDREN).

    python benchmarks/exact_hostile.py [N]     # the first N inputs of the corpus (default 7)

A child's own peak memory is not in RUSAGE_CHILDREN's maxrss (a child counts the server's size
between fork and exec); measure it directly, e.g.
    printf '{"kind":"backward","f":"x^x^x","b":"g","points":[2]}' | \
        /usr/bin/time -f "%M KB" python -m hograd_serving.exact_child 10 536870912
"""

import resource
import sys
import time

sys.path.insert(0, ".")
from tests.app.test_links import open_link
from tests.serving.test_exact import HOSTILE as ALL_HOSTILE  # issue 45's corpus, one list

HOSTILE = ALL_HOSTILE[: int(sys.argv[1]) if len(sys.argv) > 1 else len(ALL_HOSTILE)]
LINKS = []
for f in HOSTILE:
    LINKS.append(
        (
            "backward",
            "pages/backward.py",
            {"backward.f": f, "backward.b": "g", "backward.points": "25"},
        )
    )
    LINKS.append(("derivatives", "pages/derivatives.py", {"deriv.fn": f, "deriv.x0": "2"}))
    LINKS.append(
        (
            "hvp",
            "pages/hvp.py",
            {"hvp.fn": f.replace("x^24", "y^24").replace("(x+6)", "(y+6)") + "+y^2"},
        )
    )


def usage():
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime, s.ru_maxrss, c.ru_utime + c.ru_stime, c.ru_maxrss


open_link("pages/derivatives.py", {})  # imports and warm caches first
rows = []
for page, path, q in LINKS:
    before = usage()
    t = time.perf_counter()
    at = open_link(path, q)
    if page == "derivatives":  # the column's child answers in the background: poll as the page does
        for _ in range(40):
            if not any("still working" in i.value for i in at.info):
                break
            time.sleep(0.5)
            at.run()
    after = usage()
    rows.append(
        (
            page,
            q,
            after[0] - before[0],
            after[1],
            after[2] - before[2],
            after[3],
            time.perf_counter() - t,
            bool(at.exception),
        )
    )
    print(
        page,
        list(q.values())[0],
        f"server CPU {after[0] - before[0]:.2f}s peakRSS {after[1] / 1024:.0f}MB",
        f"children CPU {after[2] - before[2]:.2f}s exc={bool(at.exception)}",
        flush=True,
    )
for page in ("derivatives", "backward", "hvp"):
    r = [x for x in rows if x[0] == page]
    server = f"{min(x[2] for x in r):.2f}-{max(x[2] for x in r):.2f}"
    children = f"{min(x[4] for x in r):.2f}-{max(x[4] for x in r):.2f}"
    peak = max(x[3] for x in r) / 1024
    print(page, f"server CPU s {server}", f"children CPU s {children}", f"server RSS MB {peak:.0f}")
