"""The registry of content platforms and their complaint channels (Django-free).

A TOML file the operator edits (``crawler/data/platforms.toml``, settings.PLATFORM_REGISTRY_PATH):
one ``[[platform]]`` table per platform with its names in Chinese and English, the domains its
pages live on, its complaint channel's URL, the materials it asks for, the steps of filing and
the fields of its complaint form (each filled from one fact of the case: FIELD_VALUES). A case
whose registered domain, or a page's host, is a platform domain (or under one) is filed as a
complaint on that channel, not mailed. ``load`` reads and checks the file and names the line
of the first error (``RegistryError``); entries marked ``demo = true`` exist for `make run`'s
demo site and are read only when asked for.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

#: What a form field may be filled with: a fact of the case and its notice.
FIELD_VALUES = ("holder_name", "holder_contact", "work_title", "work_reference", "urls",
                "notice_text", "evidence_files", "rights_documents")
_TEXT = ("key", "name_zh", "name_en", "complaint_url")
_LISTS = ("domains", "materials_zh", "materials_en", "steps_zh", "steps_en")


class RegistryError(ValueError):
    """The registry file cannot be used; ``str()`` names the file and line (English)."""


@dataclass(frozen=True)
class FormField:
    """A field of a platform's complaint form: its labels and the fact that fills it."""

    label_zh: str
    label_en: str
    value: str


@dataclass(frozen=True)
class Platform:
    """One platform of the registry (see the module)."""

    key: str
    name_zh: str
    name_en: str
    domains: tuple[str, ...]
    complaint_url: str
    materials_zh: tuple[str, ...]
    materials_en: tuple[str, ...]
    steps_zh: tuple[str, ...]
    steps_en: tuple[str, ...]
    form_fields: tuple[FormField, ...]
    demo: bool = False

    def name(self, language: str) -> str:
        """Its name in ``language`` ("zh-hans" or another: English)."""
        return self.name_zh if language.startswith("zh") else self.name_en

    def covers(self, host: str) -> bool:
        """Whether ``host`` (str) is one of its domains or under one."""
        host = host.lower().strip(".")
        return any(host == d or host.endswith("." + d) for d in self.domains)


def _table_lines(text: str) -> list[int]:
    """The 1-based line of each ``[[platform]]`` header of ``text``, in order."""
    return [n for n, line in enumerate(text.splitlines(), 1)
            if re.match(r"\s*\[\[\s*platform\s*\]\]", line)]


def _entry(raw: dict, where: str) -> Platform:
    """The Platform of table ``raw``; RegistryError naming ``where`` when a field is wrong."""
    def fail(problem: str):
        raise RegistryError(f"{where}: {problem}")

    for name in _TEXT:
        if not isinstance(raw.get(name), str) or not raw[name].strip():
            fail(f"{name!r} must be a non-empty string")
    for name in _LISTS:
        value = raw.get(name)
        if not isinstance(value, list) or not value or not all(
                isinstance(v, str) and v.strip() for v in value):
            fail(f"{name!r} must be a non-empty list of strings")
    if not re.match(r"https?://", raw["complaint_url"]):
        fail("'complaint_url' must be an http(s) URL")
    fields = []
    for item in raw.get("form_fields") or fail("'form_fields' must list the form's fields"):
        if not isinstance(item, dict) or item.get("value") not in FIELD_VALUES or not all(
                isinstance(item.get(k), str) and item[k] for k in ("label_zh", "label_en")):
            fail(f"each form field needs label_zh, label_en and a value among {', '.join(FIELD_VALUES)}; "
                 f"got {item!r}")
        fields.append(FormField(item["label_zh"], item["label_en"], item["value"]))
    unknown = set(raw) - set(_TEXT) - set(_LISTS) - {"form_fields", "demo"}
    if unknown:
        fail(f"unknown field(s): {', '.join(sorted(unknown))}")
    if not isinstance(raw.get("demo", False), bool):
        fail("'demo' must be true or false")
    return Platform(raw["key"], raw["name_zh"], raw["name_en"],
                    tuple(d.lower().strip(".") for d in raw["domains"]), raw["complaint_url"],
                    materials_zh=tuple(raw["materials_zh"]), materials_en=tuple(raw["materials_en"]),
                    steps_zh=tuple(raw["steps_zh"]), steps_en=tuple(raw["steps_en"]),
                    form_fields=tuple(fields), demo=raw.get("demo", False))


def parse(text: str, name: str = "platforms.toml") -> list[Platform]:
    """The platforms of registry ``text`` (TOML), demo entries included.

    Raises RegistryError: "NAME, line N: ..." for a TOML syntax error (tomllib's position),
    a wrong or missing field (the line of its ``[[platform]]`` header), a key or domain
    listed twice."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"line (\d+)", str(exc))
        line = found.group(1) if found else len(text.splitlines()) or 1  # "at end of document"
        raise RegistryError(f"{name}, line {line}: {exc}") from exc
    tables, lines = document.get("platform"), _table_lines(text)
    if not isinstance(tables, list) or not tables:
        raise RegistryError(f"{name}, line 1: no [[platform]] table")
    platforms, keys = [], set()
    domains: set[str] = set()
    for index, raw in enumerate(tables):
        where = f"{name}, line {lines[index] if index < len(lines) else '?'}"
        platform = _entry(raw, where)
        if platform.key in keys or domains & set(platform.domains):
            raise RegistryError(f"{where}: key or domain listed twice ({platform.key})")
        keys.add(platform.key)
        domains |= set(platform.domains)
        platforms.append(platform)
    return platforms


def load(path: str | Path, with_demo: bool = False) -> list[Platform]:
    """The platforms of the registry file at ``path``, demo entries only when ``with_demo``.
    Raises RegistryError (see ``parse``; also an unreadable file)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RegistryError(f"{path}: cannot be read: {exc}") from exc
    return [p for p in parse(text, str(path)) if with_demo or not p.demo]


def platform_of(hosts, platforms: list[Platform]) -> Platform | None:
    """The first platform of ``platforms`` covering one of ``hosts`` (iterable of str), or None."""
    hosts = list(hosts)
    return next((p for p in platforms for host in hosts if p.covers(host)), None)
