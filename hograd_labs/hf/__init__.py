"""Hessian-free Newton on a small network against SGD and Adam (the why page's Hessian-free tab)."""
