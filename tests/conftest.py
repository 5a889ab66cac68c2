"""Settings for the whole test suite."""

import torch

# One thread, as the app runs (app.py): on a busy 2-core machine torch's default pool makes the
# many small ops of these tests up to 10x slower.
torch.set_num_threads(1)
