"""The stability limit of gradient descent: lr against 2/λ_max on a quadratic and a network
(the why page's stability tab)."""
