"""Uploaded files kept between two posts of a form: a browser never fills a file input again, so
a file refused for a reason the user can answer (a duplicate warning) is kept here, named by a
signed token that the form posts back in a hidden field.

Files live under ``settings.VAR_DIR / "kept-uploads"`` and are removed when taken back, or
after ``settings.KEPT_UPLOAD_SECONDS`` (each ``keep`` removes the expired ones).
"""

from __future__ import annotations

import time
import uuid

from django.conf import settings
from django.core import signing

SALT = "tracker.core.kept_uploads"


def _folder():
    folder = settings.VAR_DIR / "kept-uploads"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def keep(name: str, content: bytes) -> str:
    """Keep ``content`` (bytes) of the file called ``name``; returns the signed token (str)
    that ``take`` accepts for settings.KEPT_UPLOAD_SECONDS."""
    folder = _folder()
    oldest = time.time() - settings.KEPT_UPLOAD_SECONDS
    for old in folder.iterdir():
        if old.stat().st_mtime < oldest:
            old.unlink(missing_ok=True)
    key = uuid.uuid4().hex
    (folder / key).write_bytes(content)
    return signing.dumps({"key": key, "name": name}, salt=SALT)


def take(token: str) -> tuple[str, bytes] | None:
    """The (file name, bytes) kept under ``token``, removed from the folder; None for a token
    that is forged, expired or already taken."""
    try:
        kept = signing.loads(token, salt=SALT, max_age=settings.KEPT_UPLOAD_SECONDS)
        path = _folder() / kept["key"]
        content = path.read_bytes()
    except (signing.BadSignature, KeyError, TypeError, OSError):
        return None
    path.unlink(missing_ok=True)
    return str(kept["name"]), content
