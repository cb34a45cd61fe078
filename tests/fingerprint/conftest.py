"""Shared fixtures of the engine tests: real text samples and reprint edits.

Samples (tests/fingerprint/fixtures/engine/, see SOURCES.md there): three chapters of 红楼梦
(chapter_index 7, 8 and 10, 5,500-6,500 characters, no shared passage between them) and People's
Daily paragraphs (six short texts of 150-500 characters, two news texts of ~2,000 characters).
"""

from __future__ import annotations

import json
import random
from functools import lru_cache
from pathlib import Path

import pytest

from fingerprint import Engine, EngineConfig
from fingerprint.index import MemoryIndex
from fingerprint.store import MemoryWorkStore

FIXTURES = Path(__file__).parent / "fixtures" / "engine"


@pytest.fixture(scope="session")
def chapters() -> list[dict]:
    """Three 红楼梦 chapters: dicts with id, novel, chapter_index, chapter_title, text."""
    return json.loads((FIXTURES / "hongloumeng_chapters.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def daily() -> dict[str, list[str]]:
    """People's Daily samples: {"short": [6 texts of 150-500 chars], "news": [2 texts]}."""
    return json.loads((FIXTURES / "peoples_daily.json").read_text(encoding="utf-8"))


@pytest.fixture
def engine() -> Engine:
    """An Engine with the default EngineConfig over an empty MemoryIndex and MemoryWorkStore."""
    return Engine(MemoryIndex(), MemoryWorkStore(), EngineConfig())


@lru_cache(maxsize=1)
def _homophone_groups() -> dict[str, list[str]]:
    """Toneless pinyin -> the common Han characters (U+4E00-U+9FA5) read that way."""
    from pypinyin import lazy_pinyin, pinyin_dict

    chars = [chr(cp) for cp in pinyin_dict.pinyin_dict if 0x4E00 <= cp <= 0x9FA5]
    groups: dict[str, list[str]] = {}
    for ch, sound in zip(chars, lazy_pinyin(chars), strict=True):
        groups.setdefault(sound, []).append(ch)
    return groups


@lru_cache(maxsize=1)
def _s2t():
    from opencc import OpenCC

    return OpenCC("s2t")


class Edits:
    """Reprint edits with a fixed seed (random.Random(seed))."""

    FILLER = ("本站所有小说均来自网友上传，仅供学习交流。热门推荐：都市言情、玄幻奇幻、武侠仙侠。"
              "用户登录 注册 加入书架 推荐本书 手机阅读 夜间模式 字体大小 返回目录。")

    def __init__(self, seed: int = 1):
        self.rng = random.Random(seed)

    def han_positions(self, text: str) -> list[int]:
        return [i for i, ch in enumerate(text) if "\u4e00" <= ch <= "\u9fff"]

    def substitute(self, text: str, rate: float) -> str:
        """Replace ``rate`` of the Han characters by other common characters."""
        pool = "的一是了我不人在他有这个上们来到时大地为子中你说生国年着就那和要她出也得里后"
        chars = list(text)
        for i in self.rng.sample(self.han_positions(text), int(len(chars) * rate)):
            chars[i] = self.rng.choice([c for c in pool if c != chars[i]])
        return "".join(chars)

    def homophones(self, text: str, rate: float) -> str:
        """Replace ``rate`` of the Han characters by a homophone (same toneless pinyin)."""
        by_sound = _homophone_groups()
        sound = {ch: s for s, group in by_sound.items() if len(group) > 1 for ch in group}
        chars = list(text)
        pos = [i for i in self.han_positions(text) if text[i] in sound]
        for i in self.rng.sample(pos, int(len(self.han_positions(text)) * rate)):
            same = by_sound[sound[text[i]]]
            chars[i] = self.rng.choice([c for c in same if c != text[i]])
        return "".join(chars)

    @staticmethod
    def traditional(text: str) -> str:
        """Simplified -> traditional script (OpenCC s2t)."""
        return _s2t().convert(text)

    def paragraphs(self, text: str) -> list[str]:
        return [p for p in text.split("\n") if p.strip()]

    def reorder(self, text: str) -> str:
        """Shuffle the paragraphs."""
        paras = self.paragraphs(text)
        self.rng.shuffle(paras)
        return "\n".join(paras)

    def delete_sentences(self, text: str, rate: float) -> str:
        """Delete ``rate`` of the sentences (split after 。！？)."""
        import re

        sents = [s for s in re.split(r"(?<=[。！？])", text) if s]
        drop = set(self.rng.sample(range(len(sents)), int(len(sents) * rate)))
        return "".join(s for i, s in enumerate(sents) if i not in drop)

    def site(self, text: str) -> str:
        """Wrap in a site header, footer and an ad line in the middle."""
        paras = self.paragraphs(text)
        mid = len(paras) // 2
        body = "\n".join(paras[:mid] + ["【广告】" + self.FILLER[:40]] + paras[mid:])
        return "首页 > 小说 > 正文\n" + self.FILLER + "\n" + body + "\n上一章 目录 下一章\n" + self.FILLER


@pytest.fixture
def edits() -> Edits:
    """Seeded reprint edits (see Edits)."""
    return Edits()
