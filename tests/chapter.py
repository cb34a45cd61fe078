"""The text the copying-site tests register and serve: the first chapter of 西游记
(tests/crawler/fixtures/xiyouji-ch1.txt, 4,000 characters). Test modules import it as
``from tests.chapter import CHAPTER`` (a conftest cannot be imported); the ``indexed_chapter``
fixture of tests/conftest.py registers it as a work."""

from pathlib import Path

CHAPTER = (Path(__file__).parent / "crawler" / "fixtures" / "xiyouji-ch1.txt").read_text(
    encoding="utf-8")
