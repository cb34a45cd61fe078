"""crawler.lib is a library below the Django apps: importing it loads no Django and nothing
above it."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODULES = [".".join(path.relative_to(ROOT).with_suffix("").parts)
           for path in (ROOT / "crawler" / "lib").rglob("*.py")]
ABOVE = ("django", "celery", "tracker", "dashboard", "fingerprint")


def test_importing_the_crawl_library_loads_no_django_and_nothing_above_it():
    probe = (f"import importlib, sys\nfor name in {MODULES!r}: importlib.import_module(name)\n"
             f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({ABOVE!r})))")
    loaded = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout.strip()

    assert len(MODULES) >= 5 and loaded == "[]"
