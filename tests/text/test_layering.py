"""tracker.text is a library below the Django apps: it imports no Django and nothing above it."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "tracker" / "text"
FORBIDDEN = ("django", "celery", "tracker.core", "crawler", "dashboard", "fingerprint")


def test_text_package_imports_no_django_and_nothing_above_it():
    found = []
    for path in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            found += [(path.name, n) for n in names if n.split(".")[0] in FORBIDDEN
                      or n.startswith(FORBIDDEN)]
    assert list(PACKAGE.glob("*.py")) and found == []
