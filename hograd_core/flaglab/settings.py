"""The flag lab's settings: the toggles of ``torch.autograd.grad`` and the action after it
(plain data, loaded without torch: the lesson's steps name the settings they start at)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ACTIONS", "FlagSettings"]

#: What the second half of a flag-lab run does.
ACTIONS = ("next", "again", "backward")


@dataclass(frozen=True)
class FlagSettings:
    """The toggles of the flag lab (defaults are PyTorch's own).

    Attributes:
        create_graph: record the backward pass so its result can be differentiated again.
        retain_graph: keep the graph after the call; None means "same as create_graph".
        allow_unused: return None for an input the output does not depend on.
        materialize_grads: return zeros instead of None there (implies allow_unused).
        unused_input: also differentiate with respect to an input z that y does not use.
        action: "next" (differentiate dy again), "again" (grad of y a second time) or
            "backward" (``y.backward()`` twice instead of ``autograd.grad``; it has no
            allow_unused or materialize_grads, so those are ignored).
    """

    create_graph: bool = False
    retain_graph: bool | None = None
    allow_unused: bool = False
    materialize_grads: bool = False
    unused_input: bool = False
    action: str = "next"
