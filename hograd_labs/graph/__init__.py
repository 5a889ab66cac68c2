"""The double-backward graph lab: the autograd graph pass by pass, the flag lab, the classic
traps, and the graph of one Hessian-vector product (the graph page)."""
