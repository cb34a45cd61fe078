"""Notes that code stores for people to read later (a scan's note, an import's error): kept as a
stable code, an English message id and its parameters, and put into words of the reader's
language when shown. Free text typed by a person, and notes stored before this existed, are
plain text and are shown as they are.

Stored form: ``coded:`` followed by JSON ``{"code": str, "msg": str, "params": {str: value}}``;
``msg`` is a gettext message id with ``%(name)s`` placeholders, marked with ``gettext_noop`` at
the call site so that ``makemessages`` finds it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.utils import translation
from django.utils.translation import gettext

from core.localtime import shown

PREFIX = "coded:"
MOMENT = "utc"  # the key of a time parameter (``moment``)


@dataclass(frozen=True)
class CodedNote:
    """A stored note taken apart: ``code`` (stable, for programs), ``msg`` (English message id)
    and ``params`` ({placeholder: value}) for the words."""

    code: str
    msg: str
    params: dict = field(default_factory=dict)

    def words(self) -> str:
        """The note in the active language (English when the message has no translation); a
        parameter that is itself a coded note is put into words too, a list of them joined
        with "; ", and a ``moment`` shown in the active time zone."""
        params = {name: _param_words(value) for name, value in self.params.items()}
        try:
            return gettext(self.msg) % params
        except (KeyError, ValueError, TypeError):  # a translation that lost a placeholder
            return self.msg % params


def moment(when: datetime) -> dict:
    """A time as a note's parameter (aware ``when``): stored in UTC, shown as
    "YYYY-MM-DD HH:MM +HHMM" in the reader's active time zone."""
    return {MOMENT: when.astimezone(UTC).isoformat()}


def _param_words(value):
    if isinstance(value, str):
        return in_words(value)
    if isinstance(value, list):
        return "; ".join(str(_param_words(item)) for item in value)
    if isinstance(value, dict) and MOMENT in value:
        return shown(datetime.fromisoformat(value[MOMENT]))
    return value


def coded(code: str, msg: str, **params) -> str:
    """The text to store for a note: ``code`` (e.g. "scan_cancelled"), ``msg`` (an English
    message id marked with gettext_noop, e.g. "cancelled by %(user)s") and its ``params``
    (JSON-serialisable values). Raises KeyError/ValueError when ``params`` do not fill ``msg``
    and TypeError when a value is not JSON-serialisable."""
    msg % params  # noqa: B018 - fail here rather than when someone reads the note
    return PREFIX + json.dumps({"code": code, "msg": msg, "params": params}, ensure_ascii=False,
                               sort_keys=True)


def stored_prefix(code: str) -> str:
    """The text every note stored by ``coded(code, ...)`` starts with (``coded`` sorts the JSON
    keys, and "code" sorts first), for database filters such as ``error__startswith``."""
    return PREFIX + '{"code": ' + json.dumps(code, ensure_ascii=False)


def parse(stored: str | None) -> CodedNote | None:
    """The CodedNote in ``stored`` text, or None for plain text (typed by a person, or stored
    before notes were coded) and for anything malformed."""
    if not stored or not stored.startswith(PREFIX):
        return None
    try:
        data = json.loads(stored[len(PREFIX):])
        note = CodedNote(str(data["code"]), str(data["msg"]), dict(data.get("params") or {}))
        note.msg % note.params  # noqa: B018 - a message its parameters do not fill is plain text
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    return note


def in_words(stored: str | None) -> str:
    """``stored`` note in words of the active language; plain text as it is, "" for none."""
    note = parse(stored)
    return note.words() if note else (stored or "")


def in_english(stored: str | None) -> str:
    """``stored`` note in English words (for logs and the command line)."""
    with translation.override("en"):
        return in_words(stored)


def code_of(stored: str | None) -> str:
    """The stable code of a coded note, "" for plain text."""
    note = parse(stored)
    return note.code if note else ""


def params_of(stored: str | None) -> dict:
    """The parameters of a coded note, {} for plain text."""
    note = parse(stored)
    return dict(note.params) if note else {}
