from . import output_code  # noqa: F401
