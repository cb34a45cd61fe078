"""The import contracts of .importlinter hold the rules of docs/architecture.md: the source as
it is keeps them, and one import against a rule, added to a copy of the source, breaks the
contract that states the rule and fails ``lint-imports`` (as it fails ``make lint`` and CI)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("tracker", "dashboard", "crawler", "core", "lib", "fingerprint")
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

# (module file to append a probe import to, the import, the contract it breaks)
PROBES = [
    ("lib/text/__init__.py", "import fingerprint", "One way down"),
    ("fingerprint/engine.py", "import lib.crawl.pagekeys", "One way down"),
    ("lib/crawl/fetch.py", "import lib.evidence.warc", "One way down"),
    ("core/work_actions.py", "import crawler.models", "One way down"),
    ("crawler/tasks.py", "import crawler.evidence.actions", "Inside the crawler"),
    ("dashboard/alerts/actions.py", "import dashboard.admin", "Inside the dashboard"),
    ("lib/runtime/backoff.py", "import django.conf", "The Django-free libraries"),
    ("lib/crawl/fetch.py", "import core.models", "The Django-free libraries"),
    ("lib/evidence/verify.py", "import fingerprint.index", "The evidence library"),
    ("crawler/scans.py", "import tracker.urls", "Only the project glue"),
    ("core/queueing.py", "import tracker.celery", "Only the project glue"),
]


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    """A copy of the packages' Python files and of .importlinter (the probes edit the copy)."""
    copy = tmp_path_factory.mktemp("source")
    for package in PACKAGES:
        shutil.copytree(ROOT / package, copy / package, ignore=shutil.ignore_patterns(
            "*.so", "*.c", "*.html", "*.mo", "*.po", "*.js", "*.css", "__pycache__", "data"))
    shutil.copy(ROOT / ".importlinter", copy / ".importlinter")
    return copy


def lint_imports(source: Path) -> subprocess.CompletedProcess:
    """``lint-imports`` run on the copy ``source`` (its packages found before the checkout's)."""
    return subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=source, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(source)})


def test_the_source_keeps_every_contract(source):
    result = lint_imports(source)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(("path", "probe", "contract"), PROBES,
                         ids=[f"{p}: {i}" for p, i, _ in PROBES])
def test_an_import_against_a_documented_rule_breaks_its_contract(source, path, probe, contract):
    target = source / path
    original = target.read_text(encoding="utf-8")
    target.write_text(original + f"\n{probe}  # probe\n", encoding="utf-8")
    try:
        result = lint_imports(source)
    finally:
        target.write_text(original, encoding="utf-8")
    report = result.stdout.split("Broken contracts", 1)
    assert result.returncode == 1, result.stdout + result.stderr
    assert len(report) == 2 and contract in " ".join(report[1].split()), result.stdout
    importer = path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
    assert f"{importer} -> {probe.split()[-1].split('.')[0]}" in report[1]  # the probe, named
