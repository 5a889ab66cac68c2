"""English and Chinese strings of the derivatives page. Keys are prefixed ``deriv.``."""

TEXT: dict[str, tuple[str, str]] = {}
