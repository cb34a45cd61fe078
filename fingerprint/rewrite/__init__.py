"""The rewrite stage (洗稿): a second stage of the engine for pages the first leaves undecided.

Words (jieba) mapped to synonym classes (``classes``), keyed order-free over sentence windows
(``stage.codes_keys``), verified by sentence alignment (``align``). See
docs/decisions/rewrite-stage.md.
"""

from fingerprint.rewrite.align import AlignLimits, SentencePair, align_sentences
from fingerprint.rewrite.classes import Sentence, SynonymClasses, default_classes
from fingerprint.rewrite.stage import RewriteStage, RewriteVerdict, codes_keys, judge_rewrite

__all__ = ["AlignLimits", "RewriteStage", "RewriteVerdict", "Sentence", "SentencePair",
           "SynonymClasses", "align_sentences", "codes_keys", "default_classes",
           "judge_rewrite"]
