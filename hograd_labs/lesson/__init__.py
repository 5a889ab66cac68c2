"""The guided lesson: seven steps from the derivative of x³ to Hessian-vector products, each
with a text, a live view from the labs' shared drawings and an exercise the app checks."""
