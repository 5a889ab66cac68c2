"""MAML on sine waves: second- against first-order meta-learning (the why page's MAML tab)."""
