from . import callback  # noqa: F401
