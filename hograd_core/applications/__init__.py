"""What the labs of "Why gradients of gradients" share from the kernel.

Every experiment is a lab (``hograd_labs/<lab>/``, its download its own compute.py). Kept here:
the budget checks and the script record with its marked ``create_graph`` lines
(:mod:`.common`), and TensorBoard event files written without tensorboard (:mod:`.event_file`).
"""

from .common import Code

__all__ = ["Code"]
