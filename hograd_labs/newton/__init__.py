"""Newton's method against gradient descent on a typed function (the why page's Newton tab)."""
