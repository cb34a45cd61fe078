"""The default storage of evidence bundles: files under settings.EVIDENCE_DIR."""

from __future__ import annotations

import os

from django.conf import settings
from django.core.files.storage import FileSystemStorage


class EvidenceFileStorage(FileSystemStorage):
    """FileSystemStorage rooted at settings.EVIDENCE_DIR, read when used (not when the model
    class is built), so that a process that moves its data folder finds its bundles."""

    @property
    def base_location(self):
        return str(settings.EVIDENCE_DIR)

    @property
    def location(self):
        return os.path.abspath(self.base_location)
