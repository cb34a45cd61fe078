"""The README and docs/ say only what is true: the commands they show exist and work as written
in a fresh clone's shell (which has no ``python`` with the project's packages: they name the
virtualenv's interpreter), their links lead somewhere, and the architecture map names packages
that exist. Needs no server."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
from django.core.management import get_commands

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")),
             *sorted(ROOT.glob("[a-z]*/README.md"))]
MANAGE = re.compile(r"manage\.py (\w+)")
MAKE = re.compile(r"(?<![\w-])make ([a-z][\w-]*)")
MODULE = re.compile(r"python -m ([\w.]+)")
LINK = re.compile(r"\]\(([^)#\s]+)\)")
BARE_PYTHON = re.compile(r"(?<![\w/.])python3? (manage\.py|-m \w)")


def _code(path: Path) -> str:
    """The text of ``path`` inside backticks and fenced blocks: where commands are shown."""
    text = path.read_text()
    fenced = re.findall(r"```.*?\n(.*?)```", text, re.S)
    return "\n".join(fenced + re.findall(r"`([^`\n]+)`", text))


def _make_targets() -> set[str]:
    return set(re.findall(r"^([a-z][\w-]*):", (ROOT / "Makefile").read_text(), re.M))


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_command_shown_exists(path):
    code = _code(path)
    commands, targets = set(get_commands()), _make_targets()
    assert not {c for c in MANAGE.findall(code)} - commands, "unknown manage.py commands"
    assert not {t for t in MAKE.findall(code)} - targets, "unknown make targets"
    missing = {m for m in MODULE.findall(code) if importlib.util.find_spec(m) is None}
    assert not missing, "unknown python -m modules"
    bare = [line.strip() for line in code.splitlines() if BARE_PYTHON.search(line)]
    assert bare == [], "commands run a bare python: write .venv/bin/python"


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_leads_to_a_file(path):
    links = [link for link in LINK.findall(path.read_text()) if "://" not in link]
    assert [link for link in links if not (path.parent / link).exists()] == []


def test_the_readme_is_short():
    assert len((ROOT / "README.md").read_text().splitlines()) <= 150


def test_the_architecture_map_names_existing_packages():
    text = (ROOT / "docs" / "architecture.md").read_text()
    folders = set(re.findall(r"`((?:fingerprint|tracker|crawler|dashboard)(?:/[\w]+)*)/`", text))
    assert folders, "the map names no package folder"
    assert sorted(f for f in folders if not (ROOT / f).is_dir()) == []
    modules = set(re.findall(r"`((?:fingerprint|tracker|crawler|dashboard)(?:\.\w+)+)", text))
    assert sorted(m for m in modules if not _importable(m) and m not in _task_names()) == []


def _task_names() -> set[str]:
    """The names of the Celery tasks (``crawler.discover_sites``), which read like modules."""
    from tracker.celery import app

    app.loader.import_default_modules()
    return set(app.tasks)


def _importable(dotted: str) -> bool:
    """True when ``dotted`` names a module, or an attribute of one (``crawler.scans.figures``)."""
    parts = dotted.split(".")
    obj, cut = importlib.import_module(parts[0]), 1
    while cut < len(parts):
        try:
            obj = importlib.import_module(".".join(parts[:cut + 1]))
        except ModuleNotFoundError:
            break
        cut += 1
    for name in parts[cut:]:
        if not hasattr(obj, name):
            return False
        obj = getattr(obj, name)
    return True
