"""Hessian-vector products: what H v means on a typed function, and on a small trained network
(the HVP page)."""
