"""The edits that reprints make, applied to a work's text to build a benchmark query page.

Every edit is a function ``edit(text, rng, kit) -> str`` that draws only from ``rng`` (a seeded
``random.Random``) and from the shared :class:`EditKit`, so the same seed gives the same pages.
Rates are shares of the text's CJK characters (the characters that carry the content); other
characters (punctuation, digits, spaces) are never edited.

- ``header_footer``: the page of a real Chinese portal around the text: navigation bar,
  breadcrumb and date line before it, a "related reading" block of headlines after about a third
  of the paragraphs, and an editor line, recommended headlines and the copyright/ICP footer after
  it. All of it is real text from the pages in ``news_html_dev.tar.gz`` (link texts and footer
  lines of 163, sina, ifeng, thepaper, qq, ... ), about 15-35% of the text's length.
- ``substitute_1`` / ``substitute_3``: 1% / 3% of the CJK characters replaced by other common
  characters (typos, OCR errors, deliberate noise), drawn by their frequency in the corpus.
- ``homophones_5``: 5% of the CJK characters replaced by a homophone: a different common
  character whose default pinyin reading (pypinyin's data, tones dropped) is the same.
- ``traditional``: simplified to traditional characters with OpenCC's ``s2t`` table
  (opencc-python-reimplemented).
- ``reorder``: paragraphs shuffled (texts with fewer than 4 lines are first cut into blocks at
  sentence ends, about 150-300 characters each).
- ``delete_10``: 10% of the sentences deleted.
- ``excerpt``: a 300-character excerpt, starting at a sentence start, inserted at a paragraph
  boundary inside an unrelated host text.
- ``combination``: 10% of the sentences deleted, 1% of the CJK characters substituted, wrapped
  in a portal's header/footer, then the whole page converted to traditional characters.

English pages (``ENGLISH_EDITS``, the ``english`` corpus): ``header_footer`` as above,
``light_cuts``: an answer reprinted with light cuts: 10% of its sentences and then 3% of its
remaining words deleted, and ``reword_20``: light revisions, 20% of the words of every
sentence replaced by a synonym or another inflection, or swapped with the next word; both
wrapped in a portal's header/footer.
"""

from __future__ import annotations

import io
import json
import random
import re
import tarfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import lxml.html
from opencc import OpenCC
from pypinyin import lazy_pinyin

from bench.corpus import DATA_DIR, Doc

HTML_FILE = "news_html_dev.tar.gz"
SKIPPED_SITES = {"njxfhn"}  # a keyword-stuffed spam page, not portal boilerplate
BOILERPLATE_SHARE = (0.15, 0.35)  # boilerplate characters per text character
MIN_BOILERPLATE = 120  # characters, so that short news still get a full header and footer
EXCERPT_CHARS = 300
COMMON_CHAR_MIN = 3  # occurrences in the corpus for a character to be used as a replacement

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_HAS_CJK = re.compile(r"[\u4e00-\u9fff]")
_SENTENCE = re.compile(r"[^。！？!?；;…\n]*(?:[。！？!?；;…]+[”’」』\"]?|\n|$)")
_CLAUSE = re.compile(r"[^，,、：:。！？!?；;…\n]*(?:[，,、：:。！？!?；;…]+[”’」』\"]?|\n|$)")
_FOOTER = re.compile(r"版权所有|Copyright|ICP|许可证|All [Rr]ights")
_SPACE = re.compile(r"\s+")

Edit = Callable[[str, random.Random, "EditKit"], str]


@dataclass(frozen=True)
class SiteTemplate:
    """Boilerplate of one real portal page.

    Attributes:
        site: the site's name in the archive (``163``, ``sina``, ...).
        nav: short link texts (2-8 characters): navigation bar entries.
        headlines: long link texts (9-40 characters): related and recommended headlines.
        footer: copyright, licence and ICP lines (at most 120 characters each).
    """

    site: str
    nav: tuple[str, ...]
    headlines: tuple[str, ...]
    footer: tuple[str, ...]


def load_templates(data_dir: Path = DATA_DIR) -> list[SiteTemplate]:
    """Extract the boilerplate of the real news pages in ``news_html_dev.tar.gz``.

    Args:
        data_dir: folder holding the archive.

    Returns:
        One SiteTemplate per page that has navigation links, headlines and a footer.

    Raises:
        FileNotFoundError: the archive is missing.
    """
    templates = []
    with tarfile.open(data_dir / HTML_FILE) as archive:
        index = archive.extractfile("news_html/index.jsonl")
        for line in io.TextIOWrapper(index, encoding="utf-8"):
            entry = json.loads(line)
            if entry["site"] in SKIPPED_SITES:
                continue
            html = archive.extractfile(f"news_html/{entry['id']}").read().decode("utf-8")
            template = _template(entry["site"], html)
            if template.nav and template.headlines and template.footer:
                templates.append(template)
    return templates


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def _template(site: str, html: str) -> SiteTemplate:
    root = lxml.html.fromstring(html)
    for node in root.xpath("//script|//style|//noscript"):
        node.drop_tree()
    links = [_SPACE.sub(" ", a.text_content()).strip() for a in root.iter("a")]
    links = [t for t in links if _HAS_CJK.search(t)]
    texts = (_SPACE.sub(" ", t).strip() for t in root.xpath("//text()"))
    return SiteTemplate(site,
                        _unique(t for t in links if 2 <= len(t) <= 8),
                        _unique(t for t in links if 9 <= len(t) <= 40),
                        _unique(t for t in texts if _FOOTER.search(t) and 6 <= len(t) <= 120))


def homophone_map(chars: Iterable[str]) -> dict[str, list[str]]:
    """Map each character to the others with the same default pinyin reading, tones dropped.

    The reading is pypinyin's first (most common) reading of the character alone, from its
    per-character data (``lazy_pinyin``), so polyphonic characters are grouped by that reading.

    Args:
        chars: distinct CJK characters, most frequent first.

    Returns:
        character -> its homophones among ``chars`` (in the given order); characters without a
        homophone are left out.
    """
    groups: dict[str, list[str]] = defaultdict(list)
    for char in chars:
        groups[lazy_pinyin(char)[0]].append(char)
    return {char: [m for m in members if m != char]
            for members in groups.values() if len(members) > 1 for char in members}


@dataclass
class EditKit:
    """What the edits draw from, built once per corpus.

    Attributes:
        templates: real portal boilerplate.
        chars: common CJK characters of the corpus, most frequent first.
        weights: their occurrence counts, same order.
        homophones: character -> other common characters with the same toneless reading.
        hosts: unrelated texts that receive the excerpt.
        converter: OpenCC simplified-to-traditional converter.
    """

    templates: list[SiteTemplate]
    chars: list[str]
    weights: list[int]
    homophones: dict[str, list[str]]
    hosts: list[Doc]
    converter: OpenCC

    @classmethod
    def build(cls, texts: Iterable[str], hosts: list[Doc], data_dir: Path = DATA_DIR) -> EditKit:
        """Build the kit from a corpus' texts.

        Args:
            texts: the corpus' texts, for character frequencies (characters seen at least
                ``COMMON_CHAR_MIN`` times become replacements and homophones).
            hosts: host texts for the excerpt edit (at least one).
            data_dir: folder of the shared data (for the portal pages).

        Returns:
            The EditKit.

        Raises:
            ValueError: no host texts were given.
        """
        if not hosts:
            raise ValueError("the excerpt edit needs at least one host text")
        counts = Counter(ch for text in texts for ch in _CJK.findall(text))
        common = [(ch, n) for ch, n in counts.most_common() if n >= COMMON_CHAR_MIN]
        chars = [ch for ch, _ in common]
        return cls(load_templates(data_dir), chars, [n for _, n in common],
                   homophone_map(chars), hosts, OpenCC("s2t"))


def _cjk_positions(text: str) -> list[int]:
    return [m.start() for m in _CJK.finditer(text)]


def _replace(text: str, rate: float, rng: random.Random, pick: Callable[[str], str | None],
             eligible: Callable[[str], bool]) -> str:
    positions = _cjk_positions(text)
    count = round(rate * len(positions))
    candidates = [i for i in positions if eligible(text[i])]
    chars = list(text)
    for i in rng.sample(candidates, min(count, len(candidates))):
        chars[i] = pick(chars[i]) or chars[i]
    return "".join(chars)


def substitute(text: str, rate: float, rng: random.Random, kit: EditKit) -> str:
    """Replace ``rate`` of the CJK characters by other common characters.

    Args:
        text: the page text.
        rate: share of the CJK characters to replace (0.01 = 1%).
        rng: random source.
        kit: the EditKit (character frequencies).

    Returns:
        The edited text, same length in characters.
    """
    def pick(char: str) -> str:
        while True:
            new = rng.choices(kit.chars, kit.weights)[0]
            if new != char:
                return new

    return _replace(text, rate, rng, pick, lambda char: True)


def homophones(text: str, rate: float, rng: random.Random, kit: EditKit) -> str:
    """Replace ``rate`` of the CJK characters (of all of them) by a same-reading character.

    Args:
        text: the page text.
        rate: share of the text's CJK characters to replace; only characters that have a
            homophone among the common characters are candidates.
        rng: random source.
        kit: the EditKit (homophone groups).

    Returns:
        The edited text, same length in characters.
    """
    return _replace(text, rate, rng, lambda char: rng.choice(kit.homophones[char]),
                    lambda char: char in kit.homophones)


def sentences(text: str) -> list[str]:
    """Split a text into sentences, each keeping its end punctuation and closing quote.

    Args:
        text: any text.

    Returns:
        Pieces whose concatenation is ``text``; a newline ends a piece too.
    """
    return [piece for piece in _SENTENCE.findall(text) if piece]


def _within(pieces: list[str], rate: float, rng: random.Random) -> set[int]:
    """Indexes of CJK-holding pieces, taken in random order while their characters stay within
    ``rate`` of all such pieces' characters; never all of them (set, possibly empty)."""
    content = [i for i, piece in enumerate(pieces) if _CJK.search(piece)]
    budget = rate * sum(len(pieces[i]) for i in content)
    drop, used = set(), 0
    for i in rng.sample(content, len(content)):
        if used + len(pieces[i]) <= budget and len(drop) < len(content) - 1:
            drop.add(i)
            used += len(pieces[i])
    return drop


def delete_sentences(text: str, rate: float, rng: random.Random, kit: EditKit) -> str:
    """Delete about ``rate`` of the text's characters as whole sentences (those holding CJK
    characters), chosen at random, never more than ``rate`` of them; a text with no sentence
    that short loses clauses within ``rate`` instead, or else one clause (deleting one of a
    short text's two or three sentences would remove half of it or more). At least one piece
    is deleted, never the whole text.

    Args:
        text: the page text.
        rate: share of the characters (of CJK-holding sentences) to delete.
        rng: random source.
        kit: unused (the common edit signature).

    Returns:
        The text without the deleted sentences or clauses.
    """
    pieces = sentences(text)
    drop = _within(pieces, rate, rng)
    if not drop:
        pieces = _CLAUSE.findall(text)
        drop = _within(pieces, rate, rng)
        content = [i for i, piece in enumerate(pieces) if _CJK.search(piece)]
        if not drop and len(content) > 1:
            drop = {rng.choice(content)}
    return "".join(piece for i, piece in enumerate(pieces) if i not in drop)


def _paragraphs(text: str, rng: random.Random) -> list[str]:
    lines = [line for line in text.split("\n") if line.strip()]
    if len(lines) >= 4:
        return lines
    blocks, current = [], ""
    target = rng.randint(150, 300)
    for piece in sentences(text.replace("\n", "")):
        current += piece
        if len(current) >= target:
            blocks.append(current)
            current, target = "", rng.randint(150, 300)
    if current:
        blocks.append(current)
    return blocks


def reorder(text: str, rng: random.Random, kit: EditKit) -> str:
    """Shuffle the paragraphs (never returning the original order when there are two or more).

    Args:
        text: the page text.
        rng: random source.
        kit: unused.

    Returns:
        The paragraphs in a new order, joined with newlines.
    """
    paragraphs = _paragraphs(text, rng)
    order = list(range(len(paragraphs)))
    while len(order) > 1 and order == sorted(order):
        rng.shuffle(order)
    return "\n".join(paragraphs[i] for i in order)


def traditional(text: str, rng: random.Random, kit: EditKit) -> str:
    """Convert to traditional characters with OpenCC's ``s2t`` table.

    Args:
        text: the page text.
        rng: unused.
        kit: the EditKit (converter).

    Returns:
        The converted text (OpenCC's s2t maps characters one to one here, but the length may
        differ for a few phrases).
    """
    return kit.converter.convert(text)


def _fill(items: tuple[str, ...], budget: int, rng: random.Random) -> list[str]:
    chosen, used = [], 0
    for item in rng.sample(items, len(items)):
        if used >= budget:
            break
        chosen.append(item)
        used += len(item) + 1
    return chosen


def header_footer(text: str, rng: random.Random, kit: EditKit) -> str:
    """Wrap the text in a real portal's boilerplate (see the module docstring).

    Args:
        text: the page text.
        rng: random source.
        kit: the EditKit (site templates).

    Returns:
        Header lines, the text with a related-headlines block after about a third of its
        paragraphs, then an editor line, recommended headlines and footer lines.
    """
    site = rng.choice(kit.templates)
    budget = max(MIN_BOILERPLATE, round(rng.uniform(*BOILERPLATE_SHARE) * len(text)))
    nav = _fill(site.nav, budget * 3 // 10, rng)
    related = _fill(site.headlines, budget * 2 // 10, rng)
    recommended = _fill(site.headlines, budget * 3 // 10, rng)
    footer = _fill(site.footer, budget * 2 // 10, rng)
    paragraphs = text.split("\n")
    cut = max(1, len(paragraphs) // 3)
    day = f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} {rng.randint(0, 23):02d}:" \
          f"{rng.randint(0, 59):02d}"
    page = [" | ".join(nav), f"{nav[0]} > {nav[-1]} > 正文", f"{day}  来源：{site.site}",
            *paragraphs[:cut], "相关阅读：", *related, *paragraphs[cut:],
            f"（责任编辑：{rng.choice(site.nav)}）", "推荐阅读", *recommended, *footer]
    return "\n".join(page)


def excerpt(text: str, rng: random.Random, kit: EditKit) -> str:
    """Copy ``EXCERPT_CHARS`` characters of the text, from a sentence start, into a host text
    (the whole text when it is shorter: a news page quoting a short judgment).

    Args:
        text: the work's text.
        rng: random source.
        kit: the EditKit (host texts).

    Returns:
        The host text with the excerpt (which may span paragraphs) inserted as its own paragraph
        at a line boundary in the host's middle half (or at its middle sentence end when the
        host has no inner line break).
    """
    starts, offset = [0], 0
    for piece in sentences(text):
        offset += len(piece)
        starts.append(offset)
    starts = [s for s in starts if s + EXCERPT_CHARS <= len(text)] or [0]
    start = rng.choice(starts)
    while start < len(text) and text[start] in "\n \u3000":
        start += 1
    copied = text[start:start + EXCERPT_CHARS]
    host = rng.choice(kit.hosts).text
    quarter = len(host) // 4
    breaks = [m.end() for m in re.finditer("\n", host) if quarter <= m.end() <= 3 * quarter]
    if not breaks:
        breaks = [m.end() for m in re.finditer("[。！？]", host)] or [len(host)]
        breaks = [min(breaks, key=lambda b: abs(b - 2 * quarter))]
    at = rng.choice(breaks)
    before = host[:at] if host[:at].endswith("\n") else host[:at] + "\n"
    return f"{before}{copied}\n{host[at:]}"


def combination(text: str, rng: random.Random, kit: EditKit) -> str:
    """10% of sentences deleted, 1% substituted, portal boilerplate, then traditional characters.

    Args:
        text: the page text.
        rng: random source.
        kit: the EditKit.

    Returns:
        The edited page.
    """
    text = delete_sentences(text, 0.10, rng, kit)
    text = substitute(text, 0.01, rng, kit)
    return traditional(header_footer(text, rng, kit), rng, kit)


EN_SENTENCE = re.compile(r"(?<=[.!?])\s+")
EN_SENTENCE_CUT = 0.10  # share of an English text's sentences deleted by light_cuts
EN_WORD_CUT = 0.03  # share of the remaining words deleted by light_cuts


def light_cuts(text: str, rng: random.Random, kit: EditKit) -> str:
    """An English answer reprinted with light cuts, inside a portal's boilerplate.

    Args:
        text: the work's text (English prose).
        rng: random source.
        kit: the EditKit (portal templates).

    Returns:
        ``EN_SENTENCE_CUT`` of the sentences (rounded, at least one when there are two or more)
        and then ``EN_WORD_CUT`` of the remaining words (rounded) deleted, wrapped by
        ``header_footer``.
    """
    pieces = EN_SENTENCE.split(text.strip())
    if len(pieces) > 1:
        drop = set(rng.sample(range(len(pieces)), max(1, round(EN_SENTENCE_CUT * len(pieces)))))
        pieces = [piece for i, piece in enumerate(pieces) if i not in drop]
    words = " ".join(pieces).split(" ")
    drop = set(rng.sample(range(len(words)), round(EN_WORD_CUT * len(words))))
    return header_footer(" ".join(w for i, w in enumerate(words) if i not in drop), rng, kit)


EN_REWORD = 0.20  # share of each sentence's words that reword changes
# Plain-English synonyms a reviser uses (general words, none taken from the corpus); both ways
_EN_SYNONYMS = [
    ("use", "employ"), ("also", "too"), ("however", "but"), ("can", "may"),
    ("example", "instance"), ("called", "named"), ("usually", "generally"),
    ("several", "some"), ("large", "big"), ("small", "little"), ("first", "initial"),
    ("only", "just"), ("often", "frequently"), ("because", "since"), ("begin", "start"),
    ("end", "finish"), ("show", "display"), ("get", "obtain"), ("give", "provide"),
    ("make", "create"), ("need", "require"), ("allow", "permit"), ("contain", "hold"),
    ("each", "every"), ("whole", "entire"), ("different", "distinct"), ("same", "identical"),
    ("like", "such as"), ("important", "significant"), ("quickly", "rapidly"),
    ("change", "alter"), ("choose", "select"), ("find", "locate"), ("help", "assist"),
    ("try", "attempt"), ("keep", "retain"), ("enough", "sufficient"), ("about", "around"),
    ("therefore", "thus"), ("otherwise", "else"), ("mostly", "largely"), ("clear", "plain"),
    ("simple", "easy"), ("main", "principal"), ("way", "manner"), ("part", "portion"),
    ("kind", "sort"), ("said", "stated"), ("happen", "occur"), ("right", "correct"),
    ("whether", "if"), ("many", "numerous"), ("following", "next"), ("possible", "feasible"),
    ("rather", "instead"), ("always", "invariably"), ("describe", "explain"), ("refer", "point"),
]
_EN_SYNONYM = {**dict(_EN_SYNONYMS), **{b: a for a, b in _EN_SYNONYMS}}
_EN_WORD = re.compile(r"^(\W*)([A-Za-z]+)(\W*)$")


def _inflected(word: str, rng: random.Random) -> str | None:
    """Another inflection of the same lemma (lemminflect's tables), or None."""
    from lemminflect import getAllInflections, getAllLemmas

    forms = {form for lemma in {x for xs in getAllLemmas(word.lower()).values() for x in xs}
             for group in getAllInflections(lemma).values() for form in group}
    forms.discard(word.lower())
    return rng.choice(sorted(forms)) if forms else None


def _reword_word(word: str, rng: random.Random) -> str | None:
    """``word`` (keeping its punctuation and capital) replaced by a synonym or another
    inflection of it, or None when it has neither."""
    m = _EN_WORD.match(word)
    if not m:
        return None
    before, core, after = m.groups()
    options = [x for x in (_EN_SYNONYM.get(core.lower()), _inflected(core, rng)) if x]
    if not options:
        return None
    new = rng.choice(options)
    return before + (new[:1].upper() + new[1:] if core[:1].isupper() else new) + after


def reword(text: str, rng: random.Random, kit: EditKit) -> str:
    """An English answer reprinted with light revisions, inside a portal's boilerplate.

    In every sentence, ``EN_REWORD`` of its words (rounded) are changed: each chosen word is
    replaced by a synonym (a table of plain-English pairs) or another inflection of its lemma
    (``lemminflect``), or, when it has neither, swapped with the next word when both are
    words of letters (a small reordering; the two count as two changes; numbers stay in
    place). The rest is kept; wrapped by ``header_footer``.
    """
    out = []
    for sentence in EN_SENTENCE.split(text.strip()):
        words = sentence.split(" ")
        budget = round(EN_REWORD * len(words))
        for i in rng.sample(range(len(words)), len(words)):
            if budget <= 0:
                break
            new = _reword_word(words[i], rng)
            if new is not None:
                words[i] = new
                budget -= 1
            elif budget >= 2 and i + 1 < len(words) and _EN_WORD.match(words[i]) \
                    and _EN_WORD.match(words[i + 1]):
                words[i], words[i + 1] = words[i + 1], words[i]
                budget -= 2
        out.append(" ".join(words))
    return header_footer(" ".join(out), rng, kit)


EDITS: dict[str, Edit] = {
    "header_footer": header_footer,
    "substitute_1": lambda text, rng, kit: substitute(text, 0.01, rng, kit),
    "substitute_3": lambda text, rng, kit: substitute(text, 0.03, rng, kit),
    "homophones_5": lambda text, rng, kit: homophones(text, 0.05, rng, kit),
    "traditional": traditional,
    "reorder": reorder,
    "delete_10": lambda text, rng, kit: delete_sentences(text, 0.10, rng, kit),
    "excerpt": excerpt,
    "combination": combination,
}
"""Edit name -> edit, in the order of the benchmark table's columns."""

ENGLISH_EDITS: dict[str, Edit] = {
    "header_footer": header_footer,
    "light_cuts": light_cuts,
    "reword_20": reword,
}
