"""Engine parameters (EngineConfig). Why each default is what it is, with the sweeps and
measurements that chose it: docs/decisions/engine-parameters.md."""

from __future__ import annotations

from dataclasses import dataclass

WINDOW_MODES = ("content", "fixed")
_SCHEME_FIELDS = ("window_mode", "window_letters", "overlap", "anchor_k", "letters", "levels",
                  "anchor_bits", "short_text_letters", "short_k", "short_radius")


@dataclass(frozen=True)
class EngineConfig:
    """Parameters of fingerprinting, candidate search and verification (units: letters unless
    said; measurements behind each default: docs/decisions/engine-parameters.md).

    Fingerprinting (a change changes the keys: rebuild the index): ``window_mode`` "content"
    (starts at local minima of a rolling hash of ``anchor_k`` letters, winnowing, Schleimer et
    al. 2003) or "fixed" (Daguan's fixed offsets); ``window_letters``; ``overlap`` (share of a
    window shared with the next); ``letters`` (the subset whose counts form the fingerprint);
    ``levels`` (quantization levels per letter); ``anchor_bits`` (bits of the window's first
    k-gram hash mixed into the key).
    Candidate search: ``probe`` (0, 1 or 2 quantization-boundary moves tried per key);
    ``min_window_hits`` (key hits a work needs to be verified); ``max_candidates`` (works
    verified per query, most hits first; works hit by the very same postings take one place);
    ``sibling_own_keys`` (a candidate whose every key hit is also a hit of a better candidate
    with at least this many keys of its own is a template sibling of it, not aligned; 0: every
    candidate is aligned; docs/decisions/template-siblings.md).
    Verification: ``seed_k``, ``seed_stride``, ``max_gap``, ``max_shift`` (alignment seeds and
    extension); ``min_passage_letters``; ``min_matched_letters``; ``min_score`` (0..1);
    ``max_seed_repeats``; ``verify_seed_pairs`` (``Engine.verify``, one work alone: a k-gram
    repeated more than ``max_seed_repeats`` times stays a seed while the page's seeds times
    the repeats kept stay within this many seed pairs). Template-aware evidence (``Engine._judge``): ``max_number_mismatch``
    (share of differing numbers that rejects a work), ``min_own_letters``,
    ``min_distinct_letters`` (letters weighted 1 / groups matching them),
    ``number_evidence_letters`` (added per number wholly equal to the work's),
    ``same_text_share`` and ``same_text_frame`` (when two works are the same text,
    ``fingerprint.same_text``). Short texts: ``short_text_letters``, ``short_k``,
    ``short_radius``; ``min_text_letters`` (shorter pages match nothing, shorter works are
    refused). Limits: ``max_text_chars`` (characters; longer texts raise TextTooLargeError).
    Query side: ``query_sparsity`` (pages select windows this many times more sparsely than
    works), ``dense_page_letters`` (shorter pages select densely).
    Rewrite stage (``fingerprint.rewrite``, docs/decisions/rewrite-stage.md; sentences and
    tokens, not letters): ``rewrite_stage`` (on or off); a page is *undecided*, and goes to
    the stage, when the first stage reports no match and its best work has at least
    ``rewrite_min_first_hits`` window-key hits (fewer: settled as unrelated);
    ``rewrite_max_candidates`` (works verified, most rewrite-key hits first, with at least
    ``rewrite_min_key_hits`` hits and ``rewrite_min_key_share`` of the page's rewrite keys);
    ``rewrite_min_tokens`` (tokens a sentence needs to be keyed and counted);
    ``rewrite_pair_score`` (least containment of a sentence pair, 0..1),
    ``rewrite_min_shared`` (tokens a pair shares), ``rewrite_max_unit_ratio`` (page characters
    per work sentence character in a pair), ``rewrite_max_token_sentences`` (a page token in
    more sentences than this is ignored); ``rewrite_min_share`` (share of the work's sentences
    paired for a match, its score) and ``rewrite_min_pairs``; ``rewrite_max_page_sentences``
    (a longer page is aligned on its first this many sentences); ``rewrite_template_works``
    (a work sentence whose every key more works than this hold is template text, not counted).
    Works inside works (``fingerprint.parts``, decided when a work is added): a work holds
    another when their alignment covers at least ``part_share`` (0..1] of the other's letters
    and more than ``same_text_frame`` of its own letters lie outside the other's length; only
    works holding ``part_key_share`` (0..1] of the other's distinct window keys are aligned.

    Raises:
        ValueError: a parameter out of its range (``__post_init__`` names it).
    """

    window_mode: str = "content"
    window_letters: int = 32
    overlap: float = 0.5
    anchor_k: int = 5
    letters: str = "bcdfghjklmnqrstwxyz"
    levels: int = 2
    anchor_bits: int = 16
    probe: int = 0
    min_window_hits: int = 2
    max_candidates: int = 20
    sibling_own_keys: int = 4
    seed_k: int = 8
    seed_stride: int = 4
    max_gap: int = 24
    max_shift: int = 12
    min_passage_letters: int = 24
    min_matched_letters: int = 40
    min_score: float = 0.0
    max_seed_repeats: int = 16
    verify_seed_pairs: int = 4_000_000
    max_number_mismatch: float = 0.1
    min_own_letters: int = 8
    min_distinct_letters: float = 16.0
    number_evidence_letters: float = 1.0
    same_text_share: float = 0.95
    same_text_frame: float = 0.25
    short_text_letters: int = 600
    short_k: int = 10
    short_radius: int = 5
    query_sparsity: int = 2
    dense_page_letters: int = 1000
    min_text_letters: int = 40
    max_text_chars: int = 10_000_000
    rewrite_stage: bool = True
    rewrite_min_first_hits: int = 0
    rewrite_max_candidates: int = 8
    rewrite_min_key_hits: int = 4
    rewrite_min_key_share: float = 0.1
    rewrite_min_tokens: int = 3
    rewrite_pair_score: float = 0.5
    rewrite_min_shared: int = 2
    rewrite_max_unit_ratio: float = 2.5
    rewrite_max_token_sentences: int = 8
    rewrite_min_share: float = 0.35
    rewrite_min_pairs: int = 4
    rewrite_template_works: int = 2
    rewrite_max_page_sentences: int = 5000
    part_key_share: float = 0.5
    part_share: float = 0.95

    def __post_init__(self):
        if self.window_mode not in WINDOW_MODES:
            raise ValueError(f"window_mode must be one of {WINDOW_MODES}, not {self.window_mode!r}")
        if self.window_letters < 8:
            raise ValueError("window_letters must be at least 8")
        if not 0.0 <= self.overlap < 1.0:
            raise ValueError("overlap must be in [0, 1)")
        if not 2 <= self.levels <= 10:
            raise ValueError("levels must be in [2, 10]")
        if not self.letters or set(self.letters) - set("abcdefghijklmnopqrstuvwxyz"):
            raise ValueError("letters must be a non-empty subset of a-z")
        if not 1 <= self.anchor_k <= 12 or not 4 <= self.seed_k <= 12:
            raise ValueError("anchor_k must be in [1, 12] and seed_k in [4, 12]")
        if self.anchor_k > self.window_letters:  # a window's key hashes its first k-gram
            raise ValueError("anchor_k must not be larger than window_letters")
        if not self.anchor_k <= self.short_k <= min(12, 2 * self.anchor_k):
            raise ValueError("short_k must be in [anchor_k, min(12, 2 * anchor_k)]")
        if not 1 <= self.seed_stride <= self.seed_k:
            raise ValueError("seed_stride must be in [1, seed_k]")
        if self.query_sparsity < 1 or self.short_radius < 1:
            raise ValueError("query_sparsity and short_radius must be at least 1")
        if not 0.5 <= self.same_text_share <= 1.0 or not 0.0 <= self.same_text_frame < 0.5:
            raise ValueError("same_text_share must be in [0.5, 1] and same_text_frame in [0, 0.5)")
        if self.verify_seed_pairs < 0 or self.sibling_own_keys < 0:
            raise ValueError("verify_seed_pairs and sibling_own_keys must be at least 0")
        if self.probe not in (0, 1, 2):
            raise ValueError("probe must be 0, 1 or 2")
        if not 0.0 < self.rewrite_pair_score <= 1.0 or not 0.0 < self.rewrite_min_share <= 1.0 \
                or not 0.0 <= self.rewrite_min_key_share <= 1.0:
            raise ValueError("rewrite_pair_score and rewrite_min_share must be in (0, 1], "
                             "rewrite_min_key_share in [0, 1]")
        if not 0.0 < self.part_key_share <= 1.0 or not 0.0 < self.part_share <= 1.0:
            raise ValueError("part_key_share and part_share must be in (0, 1]")
        if min(self.rewrite_min_pairs, self.rewrite_min_tokens, self.rewrite_min_shared,
               self.rewrite_max_token_sentences, self.rewrite_max_candidates,
               self.rewrite_max_page_sentences, self.rewrite_template_works) < 1 or self.rewrite_max_unit_ratio < 1.0:
            raise ValueError("rewrite counts must be at least 1, rewrite_max_unit_ratio at least 1")

    @property
    def stride(self) -> int:
        """Expected letters between consecutive window starts (at least 1)."""
        return max(1, round(self.window_letters * (1 - self.overlap)))

    def scheme(self) -> dict:
        """The parameters that determine window keys (stored with each work)."""
        return {k: getattr(self, k) for k in _SCHEME_FIELDS}  # asdict: 15 µs a work


@dataclass(frozen=True)
class JudgeLimits:
    """The limits ``fingerprint.compiled.judge.judge_page`` judges a page's candidates by:
    EngineConfig's template-aware evidence parameters of the same names (see there; letters
    unless said), the code of the digit 0 in the letter table (``digit_letter``) and
    ``same_text_least``, the least ratio of two candidates' letter counts (the shorter's to
    the longer's) for them to be compared as the same text (``same_text_share * (1 -
    same_text_frame)``)."""

    digit_letter: int
    same_text_least: float
    min_own_letters: int
    max_number_mismatch: float
    min_distinct_letters: float
    number_evidence_letters: float
    min_score: float
    same_text_share: float
    same_text_frame: float

    @classmethod
    def of(cls, config: EngineConfig, digit_letter: int) -> JudgeLimits:
        """The limits of ``config`` with the letter table's first digit code."""
        return cls(digit_letter, config.same_text_share * (1 - config.same_text_frame),
                   config.min_own_letters, config.max_number_mismatch,
                   config.min_distinct_letters, config.number_evidence_letters,
                   config.min_score, config.same_text_share, config.same_text_frame)
