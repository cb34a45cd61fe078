"""The dashboard's base exception: every error it raises on purpose derives from it (each also
from the builtin class its callers expect)."""


class DashboardError(Exception):
    """Base class of the errors the dashboard raises."""
