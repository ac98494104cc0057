"""queue (being built)."""

__all__: list[str] = []
