"""How a call of the program's own function binds its arguments: as CPython binds them, with
CPython's own ``TypeError`` (its words, its order of checks and the function's qualified name,
``outer.<locals>.inner()``) when they do not fit, so that the page prints what Python prints.
"""

from __future__ import annotations

from typing import Protocol

__all__ = ["bind"]


class Signature(Protocol):
    """What binding reads of the program's function (interpret.UserFunction has it)."""

    qualname: str
    params: list[str]
    positional_only: list[str]
    keyword_only: list[str]
    defaults: list[object]
    keyword_defaults: dict[str, object]


def _listed(names: list[str]) -> str:
    """'a', 'a' and 'b', 'a', 'b', and 'c': as Python lists missing arguments."""
    quoted = [f"'{n}'" for n in names]
    if len(quoted) <= 2:
        return " and ".join(quoted)
    return ", ".join(quoted[:-1]) + ", and " + quoted[-1]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def bind(fn: Signature, args: list, kwargs: dict) -> dict[str, object]:
    """The names of a call of the program's function, bound as CPython binds them, with
    CPython's own TypeError (its words and its order of checks) when they do not fit."""
    who, params = f"{fn.qualname}()", fn.params
    names = dict(zip(params, args, strict=False))
    wrong_place = []
    for key, value in kwargs.items():
        if key in fn.positional_only:
            wrong_place.append(key)
        elif key not in params and key not in fn.keyword_only:
            raise TypeError(f"{who} got an unexpected keyword argument '{key}'")
        elif key in names:
            raise TypeError(f"{who} got multiple values for argument '{key}'")
        else:
            names[key] = value
    if wrong_place:
        raise TypeError(
            f"{who} got some positional-only arguments passed as keyword arguments: "
            + ", ".join(f"'{k}'" for k in wrong_place)
        )
    if len(args) > len(params):
        given, n = len(args), len(params)
        low = n - len(fn.defaults)
        takes = f"from {low} to {n}" if fn.defaults else str(n)
        word = "arguments" if fn.defaults or n != 1 else "argument"
        keyword_only = sum(1 for k in kwargs if k in fn.keyword_only)
        if keyword_only:
            also = f" {'positional argument' if given == 1 else 'positional arguments'} (and "
            told = f"{given}{also}{_plural(keyword_only, 'keyword-only argument')}) were given"
        else:
            told = f"{given} {'was' if given == 1 else 'were'} given"
        raise TypeError(f"{who} takes {takes} positional {word} but {told}")
    first_default = len(params) - len(fn.defaults)
    missing = [p for p in params[:first_default] if p not in names]
    if missing:
        raise TypeError(
            f"{who} missing {_plural(len(missing), 'required positional argument')}: "
            + _listed(missing)
        )
    for i, p in enumerate(params[first_default:]):
        names.setdefault(p, fn.defaults[i])
    missing = [k for k in fn.keyword_only if k not in names and k not in fn.keyword_defaults]
    if missing:
        raise TypeError(
            f"{who} missing {_plural(len(missing), 'required keyword-only argument')}: "
            + _listed(missing)
        )
    for k in fn.keyword_only:
        names.setdefault(k, fn.keyword_defaults.get(k))
    return names
