"""English and Chinese strings of the hvp page. Keys are prefixed ``hvp.``."""

TEXT: dict[str, tuple[str, str]] = {}
