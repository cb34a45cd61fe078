"""Models of the core app, one module per subject.

holders.py: RightsHolder; works.py: Work. The crawler's modules (sites.py: target sites and scan
runs, matches.py: matches and whitelists) are imported here once they exist.
"""

from importlib.util import find_spec

from .holders import RightsHolder
from .works import Work, WorkKind, WorkLanguage, WorkStatus

# The crawler's models register themselves with Django when their module is imported.
for _module in ("sites", "matches"):
    if find_spec(f"{__name__}.{_module}"):
        __import__(f"{__name__}.{_module}")

__all__ = ["RightsHolder", "Work", "WorkKind", "WorkLanguage", "WorkStatus"]
