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
    folders = set(re.findall(r"`((?:fingerprint|tracker|crawler|dashboard|core|lib)(?:/[\w]+)*)/`", text))
    assert folders, "the map names no package folder"
    assert sorted(f for f in folders if not (ROOT / f).is_dir()) == []
    modules = set(re.findall(r"`((?:fingerprint|tracker|crawler|dashboard|core|lib)(?:\.\w+)+)", text))
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


def test_every_setting_read_from_the_environment_is_documented():
    """Each variable tracker/settings reads (``env.int("TRACKER_...")`` and the like) has its
    row in docs/configuration.md."""
    read = set()
    for path in (ROOT / "tracker" / "settings").glob("*.py"):
        read |= set(re.findall(r"env(?:\.\w+)?\(\s*\"([A-Z][A-Z0-9_]+)\"", path.read_text()))
    documented = (ROOT / "docs" / "configuration.md").read_text()
    assert sorted(n for n in read if not re.search(rf"`{n}[`=]", documented)) == []


def test_every_api_path_is_in_the_api_guide():
    """Each path of the API's URL configuration and each extra action of its view sets is
    named in docs/api.md."""
    urls = (ROOT / "dashboard" / "api" / "urls.py").read_text()
    paths = set(re.findall(r'path\("([a-z][\w/-]*/)"', urls))
    paths |= {name + "/" for name in re.findall(r'router\.register\("([\w/-]+)"', urls)}
    guide = (ROOT / "docs" / "api.md").read_text()
    views = "".join(p.read_text() for p in (ROOT / "dashboard" / "api").glob("*.py"))
    actions = set(re.findall(r"@action\(detail=True[^)]*\)\s*\n\s*def (\w+)", views))
    missing = [p for p in paths if p not in guide]
    missing += [a for a in actions if not re.search(rf"\{{\w+\}}/{a.replace('_', '[-_]')}/", guide)]
    assert sorted(missing) == []


def test_the_tour_says_what_the_product_does():
    """README's tour: notices are .docx and .txt documents; the language switch is where the
    dashboard draws it (top left, beside the site's name: dashboard/templates/admin/
    base_site.html; seen in Chromium by tests/dashboard/test_plain_words.py)."""
    readme = (ROOT / "README.md").read_text()
    tour = readme[readme.index("## A quick tour"):readme.index("## Map")]
    assert ".docx/.txt" in tour and ".pdf" not in tour
    assert "top left" in tour and "top right" not in tour
