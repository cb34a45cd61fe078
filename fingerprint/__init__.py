"""Chinese near-duplicate detection with pinyin first-letter window fingerprints.

Public API (docs/engine-api.md): Engine, EngineConfig, Match, PageMatches, Passage, FINGERPRINT_VERSION,
EmptyTextError, TextTooLargeError. Index and store backends live in ``fingerprint.index`` and ``fingerprint.store``.

The names are imported on first use (PEP 562), so that ``python -m fingerprint`` sets up the
process (``fingerprint.__main__``) before NumPy is imported.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fingerprint.config import EngineConfig
    from fingerprint.engine import FINGERPRINT_VERSION, Engine, Match, PageMatches, Passage
    from fingerprint.letters import EmptyTextError, TextTooLargeError

_MODULE_OF = {"EngineConfig": "fingerprint.config", "FINGERPRINT_VERSION": "fingerprint.engine",
              "Engine": "fingerprint.engine", "Match": "fingerprint.engine",
              "PageMatches": "fingerprint.engine", "Passage": "fingerprint.engine",
              "EmptyTextError": "fingerprint.letters", "TextTooLargeError": "fingerprint.letters"}

__all__ = ["FINGERPRINT_VERSION", "EmptyTextError", "Engine", "EngineConfig", "Match", "PageMatches",
           "Passage", "TextTooLargeError"]


def __getattr__(name: str):
    """A public name, imported from its module on first use."""
    if name not in _MODULE_OF:
        raise AttributeError(f"module 'fingerprint' has no attribute {name!r}")
    value = getattr(importlib.import_module(_MODULE_OF[name]), name)
    globals()[name] = value
    return value
