"""A typed function's formula, printed by sympy in the exact maths' child process
(:mod:`hograd_serving.exact`), and the note a page shows when that child was stopped.

Never the raw text as LaTeX: a formula sympy did not print is shown as the typed text, as code.
"""

from __future__ import annotations

from dataclasses import dataclass

from hograd_core.language import Function
from hograd_serving.exact import MEMORY_BYTES, SECONDS, typed_latex

from .ui import t

__all__ = ["TypedTex", "draw_formula", "start_tex", "stopped_note", "typed_tex"]


@dataclass(frozen=True)
class TypedTex:
    """``latex``: sympy's LaTeX of the function (None if its child stopped, ``stopped`` says
    why); ``names``: each variable's name in LaTeX (``w1`` is ``w_{1}``)."""

    latex: str | None
    names: tuple[str, ...]
    stopped: str | None


def typed_tex(fn: Function) -> TypedTex:
    """The formula of ``fn`` (one child per function and server, then kept)."""
    answer, latex = typed_latex(fn.text, fn.variables)
    names = answer.fields.get("names")
    if not names or len(names) != len(fn.variables):  # stopped: the names in plain type
        names = [r"\mathtt{" + v.replace("_", r"\_") + "}" for v in fn.variables]
    stopped = None if latex is not None else answer.stopped or "size"  # or sympy's printer refused
    return TypedTex(latex, tuple(str(n) for n in names), stopped)


def start_tex(fn: Function) -> None:
    """Start the child for the formula of ``fn`` (if no answer is kept), without waiting: a
    page that computes something first then gets :func:`typed_tex` sooner."""
    typed_latex(fn.text, fn.variables, wait=False)


#: Why a child stopped -> the words for it (the keys written out, so each is seen as used).
REASONS = {
    "time": "exact.reason.time",
    "memory": "exact.reason.memory",
    "size": "exact.reason.size",
    "busy": "exact.reason.busy",
    "error": "exact.reason.error",
}


def stopped_note(why: str) -> str:
    """ "The exact column stopped: <reason>", in the session's language."""
    params = {"seconds": f"{SECONDS:g}", "mb": f"{MEMORY_BYTES // 2**20}"}
    return t("exact.stopped", reason=t(REASONS.get(why, REASONS["error"]), **params))


def draw_formula(where: object, left: str, tex: TypedTex, text: str) -> None:
    """``left = formula`` as LaTeX in ``where`` (an element or ``st``); where sympy's child
    stopped, the typed text as code and the note."""
    if tex.latex is not None:
        where.latex(f"{left} = {tex.latex}")
        return
    box = where.container()
    box.code(text, language=None)
    box.caption(stopped_note(tex.stopped or "error"))
