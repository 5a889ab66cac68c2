"""The flag lab: ``torch.autograd.grad``'s flags on the learner's function (:mod:`.flags`) and
the gallery of classic errors (:mod:`.cases`), run for real; :mod:`.isolated` carries a request
to a fresh process and back."""

from .cases import CASES, run_case
from .flags import ACTIONS, FlagOutcome, FlagSettings, run_flags

__all__ = ["ACTIONS", "CASES", "FlagOutcome", "FlagSettings", "run_case", "run_flags"]
