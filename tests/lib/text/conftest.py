"""Fixtures of the text tests: real texts committed elsewhere in tests/ and demo/."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def novel_text() -> str:
    """西游记 chapters 1-3 (demo/works/xiyouji-01-03.txt), about 21,000 characters."""
    return (ROOT / "demo" / "works" / "xiyouji-01-03.txt").read_text(encoding="utf-8")


@pytest.fixture
def news_html() -> bytes:
    """A real UTF-8 Chinese news page (tests/platform/fixtures/news-baijiahao-2.html)."""
    return (ROOT / "tests" / "platform" / "fixtures" / "news-baijiahao-2.html").read_bytes()
