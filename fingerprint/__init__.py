"""Chinese near-duplicate detection with pinyin first-letter window fingerprints.

Public API (docs/engine-api.md): Engine, EngineConfig, Match, PageMatches, Passage, FINGERPRINT_VERSION,
EmptyTextError, TextTooLargeError. Index and store backends live in ``fingerprint.index`` and ``fingerprint.store``.
"""

from fingerprint.config import EngineConfig
from fingerprint.engine import FINGERPRINT_VERSION, Engine, Match, PageMatches, Passage
from fingerprint.letters import EmptyTextError, TextTooLargeError

__all__ = ["FINGERPRINT_VERSION", "EmptyTextError", "Engine", "EngineConfig", "Match", "PageMatches",
           "Passage", "TextTooLargeError"]
