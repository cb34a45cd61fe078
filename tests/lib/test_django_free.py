"""The Django-free libraries run without Django: importing one (and every module under it), in a
fresh process with no Django settings, loads neither Django, Celery nor an app. The import
contracts (.importlinter) check the import statements; this checks what a process really
loads, imports made at run time and by third-party packages included."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LIBRARIES = ["fingerprint", "lib.text", "lib.runtime", "lib.crawl", "lib.evidence"]
#: Run in the recording proxy's own environment (warcprox; requirements-recorder.txt), not here.
ELSEWHERE = "lib.evidence.recording_proxy"
_PROBE = """
import importlib, pkgutil, sys
top = importlib.import_module(sys.argv[1])
for found in pkgutil.walk_packages(top.__path__, top.__name__ + "."):
    if not found.name.endswith("__main__") and found.name != sys.argv[2]:
        importlib.import_module(found.name)
print(" ".join(sorted({m.split(".")[0] for m in sys.modules} & {"django", "celery", "core",
                                                               "crawler", "dashboard", "tracker"})))
"""


@pytest.mark.parametrize("library", LIBRARIES)
def test_a_library_and_all_its_modules_load_without_django(library):
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    result = subprocess.run([sys.executable, "-c", _PROBE, library, ELSEWHERE], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [], f"{library} loads {result.stdout.strip()}"
