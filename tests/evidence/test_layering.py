"""crawler.lib.evidence sits in the Django-free crawl library: it imports no Django, no app,
only the crawl library, tracker.runtime (the Django-free plumbing) and tracker.text (whose
archive-bomb guard of uploads also guards bundle verification)."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "crawler" / "lib" / "evidence"
ALLOWED = ("crawler.lib", "tracker.runtime", "tracker.text")
ABOVE = ("django", "celery", "tracker", "crawler", "dashboard", "alerts", "fingerprint")


def test_the_evidence_library_imports_no_django_and_nothing_above_it():
    found = []
    files = list(PACKAGE.glob("*.py"))
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            found += [(path.name, name) for name in names
                      if name.split(".")[0] in ABOVE and not name.startswith(ALLOWED)]
    assert len(files) >= 5 and found == []
