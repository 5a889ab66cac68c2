"""English and Chinese strings of the graph page. Keys are prefixed ``graph.``."""

TEXT: dict[str, tuple[str, str]] = {}
