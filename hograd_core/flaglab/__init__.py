"""The flag lab: ``torch.autograd.grad``'s flags on the learner's function (:mod:`.flags`) and
the gallery of classic errors (:mod:`.cases`), run for real; :mod:`.isolated` carries a request
to a fresh process and back. The settings alone (:mod:`.settings`) load without torch."""

import importlib
from typing import Any

# Each public name and the module that defines it, imported when first used (PEP 562), as in
# hograd_core/__init__.py: a page that only names settings loads neither torch nor the gallery.
_WHERE = {
    "ACTIONS": "settings",
    "FlagSettings": "settings",
    "CASES": "cases",
    "run_case": "cases",
    "FlagOutcome": "flags",
    "run_flags": "flags",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'hograd_core.flaglab' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])


__all__ = ["ACTIONS", "CASES", "FlagOutcome", "FlagSettings", "run_case", "run_flags"]
