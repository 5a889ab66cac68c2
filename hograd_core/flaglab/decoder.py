"""The error decoder: a pasted PyTorch message, placed among the autograd mistakes it knows.

Each entry is a signature of one message's structure: a regular expression of its fixed words
with named groups for what varies (the function name, an index, a shape), so the same mistake
made on another shape, another function or inside a traceback is still found. The backward
function's name is part of a signature where it changes the cause: ``DivBackward0`` and
``SqrtBackward0`` returning NaN are different mistakes, and a name the decoder has no entry for
gets the general NaN entry, marked as such.

A match says how sure it is. ``exact``: the message's whole first sentence matches the entry's
signature and the entry names one cause. ``partial``: only a distinctive part of the message was
found (a cut paste), or the message's form is known but its cause is not one thing (NaN from a
function without an entry of its own; Python's ``NoneType`` errors, which any None gives). Text
that matches no entry is unknown: the decoder says so rather than guess.

Before matching, the text is cut to :data:`MAX_CHARS` and its runs of white space become one
space; matching ignores case. The pasted text is only read, never rendered or executed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property

from .record import FlagOutcome

__all__ = ["ENTRIES", "EXACT", "MAX_CHARS", "PARTIAL", "Decoded", "Entry", "decode", "signatures"]

MAX_CHARS = 20_000  # a long traceback fits; the rest of a longer text is not read
EXACT, PARTIAL = "exact", "partial"
SHOWN = 300  # characters of the matched text kept in a :class:`Decoded`

_SHAPE = r"[\d, ]*"  # the inside of a shape as PyTorch prints it: "", "5", "2, 3"
_NTH = r"(?P<index>\d+)(?:st|nd|rd|th)"


@dataclass(frozen=True)
class Entry:
    """One kind of mistake the decoder knows.

    Attributes:
        id: its name; its strings are ``decoder.<id>`` (the title), ``.why`` and ``.fix`` in
            locales/{en,zh}.toml, filled with ``pattern``'s groups.
        pattern: the message's structure, a regular expression over the normalised text.
        key: a distinctive part of ``pattern`` that, found alone, gives a partial match
            ("" for none: the entry needs its whole signature).
        sure: how sure a whole match is: :data:`EXACT`, or :data:`PARTIAL` when the message's
            form is known but has more than one common cause.
        case, variant: the graph page's gallery case that raises the message, if one does.
    """

    id: str
    pattern: str
    key: str = ""
    sure: str = EXACT
    case: str = ""
    variant: str = ""

    @cached_property
    def whole(self) -> re.Pattern[str]:
        return re.compile(self.pattern, re.IGNORECASE)

    @cached_property
    def part(self) -> re.Pattern[str] | None:
        return re.compile(self.key, re.IGNORECASE) if self.key else None

    @property
    def groups(self) -> tuple[str, ...]:
        """The names of the pattern's groups, the facts its strings may use."""
        return tuple(self.whole.groupindex)


def _nan(id_: str, functions: str, outputs: str = r"\d+", **case: str) -> Entry:
    """NaN from a backward function, by its name (under ``detect_anomaly``). ``functions``
    lists the names whose backward formula the entry's text states (``PowBackward0`` is
    x**p and ``PowBackward1`` x**y; ``PowBackward2``, c**x, has another), ``outputs`` the
    outputs it speaks of."""
    pattern = (
        rf"Function '(?P<fn>{functions})' returned nan values in its "
        rf"(?P<index>{outputs})(?:st|nd|rd|th) output"
    )
    return Entry(id_, pattern, **case)


#: What the decoder knows, most specific first (an earlier entry wins a tie).
ENTRIES: tuple[Entry, ...] = (
    Entry(
        "no_grad_fn",
        r"element (?P<index>\d+) of tensors does not require grad and does not have a grad_fn",
        r"element \d+ of tensors does not require grad",
        case="no_create_graph",
        variant="off",
    ),
    Entry(
        "freed_graph",
        r"Trying to backward through the graph a second time(?: \(or directly access saved "
        r"tensors after they have already been freed\)|, but the (?:saved intermediate results|"
        r"buffers) have already been freed)",
        r"Trying to backward through the graph",
        case="freed_graph",
        variant="default",
    ),
    Entry(
        "unused_input",
        r"(?:One of the differentiated Tensors|The differentiated Tensor at index (?P<index>\d+))"
        r" appears to not have been used in the graph",
        r"appears to not have been used in the graph",
        case="unused_input",
        variant="plain",
    ),
    Entry(
        "input_no_grad",
        r"(?:One of the differentiated Tensors|The differentiated Tensor at index \d+) does not "
        r"require grad",
    ),
    Entry(
        "none_gradient",  # Python's words: any None gives them, a gradient is the usual one
        r"unsupported operand type\(s\) for \S{1,3}: (?:'NoneType' and '\w+'|'\w+' and 'NoneType')"
        r"|'NoneType' object (?:has no attribute '\w+'|is not subscriptable)"
        r"|bad operand type for unary \S: 'NoneType'",
        sure=PARTIAL,
        case="unused_input",
        variant="allow_unused",
    ),
    Entry(
        "nonleaf_grad",
        r"The \.grad attribute of a Tensor that is not a leaf Tensor is being accessed",
        r"that is not a leaf Tensor is being accessed",
    ),
    Entry(
        "reference_cycle",
        r"Using backward\(\) with create_graph=True will create a reference cycle between the "
        r"parameter and its gradient",
        r"create a reference cycle between the parameter and its gradient",
        case="backward_accumulates",
        variant="twice",
    ),
    Entry(
        "inplace",
        r"one of the variables needed for gradient computation has been modified by an inplace "
        rf"operation: \[(?P<tensor>[\w.]+) \[(?P<shape>{_SHAPE})\]\], which is output \d+ of "
        r"(?P<fn>\w+), is at version (?P<version>\d+); expected version (?P<expected>\d+) instead",
        r"needed for gradient computation has been modified by an inplace operation",
        case="inplace",
        variant="inplace",
    ),
    Entry(
        "leaf_inplace",
        r"a (?:view of a )?leaf Variable that requires grad (?:is being|has been) used in an "
        r"in-place operation",
        r"leaf Variable that requires grad (?:is being|has been) used in an in-place operation",
    ),
    _nan("nan_pow", r"PowBackward[01]?", "0", case="nan_anomaly", variant="sqrt"),
    _nan("nan_sqrt", r"SqrtBackward\d*"),
    _nan("nan_log", r"LogBackward\d*", case="nan_anomaly", variant="log"),
    _nan("nan_div", r"DivBackward[01]?|ReciprocalBackward\d*"),
    Entry(
        "nan_other",  # the form is known, the cause depends on the function
        rf"Function '(?P<fn>\w+)' returned nan values in its {_NTH} output",
        r"returned nan values in its \d+(?:st|nd|rd|th) output",
        sure=PARTIAL,
    ),
    Entry(
        "custom_count",
        r"function (?P<fn>\w+) returned an incorrect number of gradients \(expected "
        r"(?P<expected>\d+), got (?P<got>\d+)\)",
        r"returned an incorrect number of gradients",
    ),
    Entry(
        "custom_shape",
        rf"Function (?P<fn>\w+) returned an invalid gradient at index (?P<index>\d+) - got "
        rf"\[(?P<got>{_SHAPE})\] but expected shape compatible with \[(?P<expected>{_SHAPE})\]",
        r"returned an invalid gradient at index \d+ - got \[",
    ),
    Entry(
        "once_differentiable",
        r"trying to differentiate twice a function that was marked with @once_differentiable",
        r"marked with @once_differentiable",
    ),
    Entry(
        "nonscalar_output",
        r"grad can be implicitly created only for scalar outputs",
        r"implicitly created only for scalar outputs",
    ),
    Entry(
        "grad_outputs_shape",
        rf"Mismatch in shape: grad_output\[(?P<index>\d+)\] has a shape of "
        rf"torch\.Size\(\[(?P<got>{_SHAPE})\]\) and output\[\d+\] has a shape of "
        rf"torch\.Size\(\[(?P<expected>{_SHAPE})\]\)",
        r"Mismatch in shape: grad_output\[",
    ),
    Entry(
        "integer_requires_grad",
        r"Only Tensors of floating point (?:and complex )?dtype can require gradients",
        r"dtype can require gradients",
    ),
    Entry(
        "checkpoint_reentrant",
        r"(?:When use_reentrant=True, torch\.utils\.checkpoint is incompatible|Checkpointing is "
        r"not compatible) with \.grad\(\)",
        r"checkpoint\S* is (?:incompatible|not compatible) with \.grad\(\)",
    ),
    Entry(
        "func_grad_nonscalar",
        r"grad_and_value\(f\)\(\*args\): Expected f\(\*args\) to return a scalar Tensor, got "
        r"tensor with (?P<dims>\d+) dims",
        r"to return a scalar Tensor, got tensor with",
    ),
    Entry(
        "numpy_requires_grad",
        r"Can't call numpy\(\) on (?:Tensor|Variable) that requires grad",
        r"call numpy\(\) on (?:Tensor|Variable) that requires grad",
    ),
    Entry(
        "vmap_item",
        r"vmap: It looks like you're (?:either \(1\) )?calling \.item\(\) on a Tensor",
        r"vmap over calling \.item\(\) on a Tensor",
    ),
    Entry(
        "jacobian_mismatch",
        r"Jacobian mismatch for output (?P<output>\d+) with respect to input (?P<input>\d+)",
        r"Jacobian mismatch for output",
    ),
)


@dataclass(frozen=True)
class Decoded:
    """Where a message was placed.

    Attributes:
        id: the :class:`Entry` it matched.
        sure: :data:`EXACT` or :data:`PARTIAL` (see the module's docstring).
        whole: whether the entry's whole signature was found (else only its key part).
        found: the part of the text that matched, white space normalised, at most
            :data:`SHOWN` characters.
        facts: the signature's groups as matched (a missing one as ""), for the strings.
        case, variant: the gallery case that raises this message ("" if none).
        also: other entries the text matches too, best first.
    """

    id: str
    sure: str
    whole: bool
    found: str
    facts: tuple[tuple[str, str], ...]
    case: str = ""
    variant: str = ""
    also: tuple[str, ...] = ()

    @property
    def keys(self) -> tuple[str, str, str]:
        """The entry's strings: title, why and fix."""
        return (f"decoder.{self.id}", f"decoder.{self.id}.why", f"decoder.{self.id}.fix")


def _normal(text: str) -> str:
    return " ".join(text[:MAX_CHARS].split())


def _last(pattern: re.Pattern[str] | None, text: str) -> re.Match[str] | None:
    found = list(pattern.finditer(text)) if pattern is not None else []
    return found[-1] if found else None


def _place(entry: Entry, text: str) -> tuple[tuple[int, int, bool], range, Decoded] | None:
    """The entry's best hold on ``text``: (rank, where, decoded), or None. A whole signature
    ranks above its key alone; then a later match above an earlier one (in a traceback the
    raised error comes last); then, on the same words, an exact entry above a partial one
    (``DivBackward0``'s own entry above the general NaN entry)."""
    whole = _last(entry.whole, text)
    if whole is not None:
        facts = tuple((k, v or "") for k, v in whole.groupdict().items())
        sure, rank, match = entry.sure, (1, whole.start(), entry.sure == EXACT), whole
    else:
        match = _last(entry.part, text)
        if match is None:
            return None
        facts = tuple((k, "") for k in entry.groups)
        sure, rank = PARTIAL, (0, match.start(), False)
    found = match.group()[:SHOWN]
    decoded = Decoded(entry.id, sure, whole is not None, found, facts, entry.case, entry.variant)
    return rank, range(*match.span()), decoded


def decode(text: str) -> Decoded | None:
    """The entry a pasted message belongs to, or None when the decoder cannot place it.

    Args:
        text: what the learner pasted: a message, maybe inside a traceback, maybe cut.

    Returns:
        The best :class:`Decoded`; its ``also`` names the entries that match elsewhere in the
        text (a general entry matching the same words is left out).

    Example:
        >>> decode("RuntimeError: Function 'DivBackward0' returned nan values in its 1th output.").id
        'nan_div'
        >>> decode("my model does not learn") is None
        True
    """
    normal = _normal(text)
    placed = []
    for order, entry in enumerate(ENTRIES):
        hold = _place(entry, normal)
        if hold is not None:
            rank, where, decoded = hold
            placed.append(((*rank, -order), where, decoded))
    if not placed:
        return None
    placed.sort(key=lambda p: p[0], reverse=True)
    _, where, best = placed[0]
    elsewhere = (d.id for _, w, d in placed[1:] if not set(w) & set(where) and d.id != best.id)
    return replace(best, also=tuple(dict.fromkeys(elsewhere)))


def signatures(outcomes: Mapping[tuple[str, str], FlagOutcome]) -> list[tuple[str, str, str]]:
    """(case, variant, message) for every error of the gallery's runs, in the order given, and
    the warnings of a case none of whose variants raises (the reference-cycle warning of
    ``backward_accumulates``). The warnings of a case that raises are left out: anomaly
    detection's "Error detected in ..." comes with any error, not only with the case's."""
    raising = {c for (c, _), o in outcomes.items() if any(s.error_type for s in o.steps)}
    found = []
    for (case, variant), outcome in outcomes.items():
        found += [
            (case, variant, f"{s.error_type}: {s.error}") for s in outcome.steps if s.error_type
        ]
        if case not in raising:
            found += [(case, variant, message) for message in outcome.warnings]
    return found
