"""The rewrite stage (洗稿): a second stage of the engine for pages the first leaves undecided.

Words (jieba) mapped to synonym classes (``classes``), keyed order-free over sentence windows
(``stage.sentence_keys``), verified by sentence alignment (``align``). See
docs/decisions/rewrite-stage.md.
"""

from fingerprint.rewrite.align import AlignLimits, SentencePair, align_sentences
from fingerprint.rewrite.classes import Sentence, SynonymClasses, default_classes
from fingerprint.rewrite.stage import RewriteStage, RewriteVerdict, judge_rewrite, sentence_keys

__all__ = ["AlignLimits", "RewriteStage", "RewriteVerdict", "Sentence", "SentencePair",
           "SynonymClasses", "align_sentences", "default_classes", "judge_rewrite",
           "sentence_keys"]
