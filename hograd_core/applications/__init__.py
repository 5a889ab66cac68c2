"""Why gradients of gradients: experiments where second-order information does the work.

Each module is one application of the page "Why gradients of gradients": Newton's method
against gradient descent (:mod:`.newton`) and Hessian-free Newton on a small network
(:mod:`.hessian_free`); the other tabs are labs (``hograd_labs/``). Every run checks
its budget first and returns a frozen dataclass of numbers; its ``*_code`` module writes the
runnable PyTorch script of the same run (a :class:`~.common.Code`).
"""

from .common import Code

__all__ = ["Code"]
