"""crawler.lib is a library below the Django apps: it imports no Django and nothing above it."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "crawler" / "lib"
FORBIDDEN = ("django", "celery", "tracker", "dashboard", "fingerprint")
ALLOWED_CRAWLER = ("crawler.lib", "crawler.backoff")  # backoff imports the standard library only


def test_the_crawl_library_imports_no_django_and_nothing_above_it():
    found = []
    files = list(PACKAGE.rglob("*.py"))
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            found += [(path.name, n) for n in names if n.split(".")[0] in FORBIDDEN
                      or (n.split(".")[0] == "crawler" and not n.startswith(ALLOWED_CRAWLER))]
    assert len(files) >= 5 and found == []
