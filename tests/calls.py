"""A call of any function of the language, for tests that loop over every one of them."""

from __future__ import annotations

#: The order n that tests give ``polygamma(n, x)``, the one function of two arguments. Not 1:
#: torch's trigamma, polygamma(1, x), is right to about 1e-10 relative only (its own test file
#: checks that), where these tests ask the last digits of float64.
POLYGAMMA_ORDER = 2


def call(name: str, arg: str = "x") -> str:
    """``name`` applied to ``arg`` as typed: ``sin(x)``, and ``polygamma(2, x)`` for polygamma."""
    return f"polygamma({POLYGAMMA_ORDER}, {arg})" if name == "polygamma" else f"{name}({arg})"
