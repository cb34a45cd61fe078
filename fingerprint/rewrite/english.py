"""English words as rewrite-stage tokens: stems of content words, function words dropped.

A revision that changes a word's inflection or voice ("returns" / "is returned") keeps its
stem (the Snowball project's English stemmer, Porter2, package ``snowballstemmer``; pure
Python, no data to download). Function words (articles, pronouns, auxiliaries, prepositions,
conjunctions: a closed class, listed below from English grammar, not from any corpus) carry
no content and come and go in every revision, so they are no tokens. There are no English
synonym classes: a word swapped for a synonym is a token lost, as in a Chinese sentence
whose word has no class.
"""

from __future__ import annotations

from functools import cache

FUNCTION_WORDS = frozenset({
    "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
    "are", "as", "at", "be", "been", "before", "being", "below", "between", "both", "but", "by",
    "can", "could", "did", "do", "does", "doing", "down", "during", "each", "either", "else",
    "ever", "every", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her",
    "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is",
    "it", "its", "itself", "just", "may", "me", "might", "more", "most", "must", "my", "myself",
    "neither", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other",
    "ought", "our", "ours", "ourselves", "out", "over", "own", "per", "same", "shall", "she",
    "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them",
    "themselves", "then", "there", "these", "they", "this", "those", "through", "thus", "to",
    "too", "under", "until", "up", "upon", "very", "via", "was", "we", "were", "what", "when",
    "where", "whether", "which", "while", "who", "whom", "whose", "why", "will", "with", "within",
    "without", "would", "yet", "you", "your", "yours", "yourself", "yourselves",
})


@cache
def _stemmer():
    import snowballstemmer  # late: 9 ms of every start, for pages with English words only

    return snowballstemmer.stemmer("english")


def english_token(word: str) -> str | None:
    """The token of an English word (str, as cut: letters only): ``"~"`` and the Porter2 stem
    of its lower case; None for a function word, a single letter, or anything that is not a
    word of ASCII letters (digits, punctuation, spaces)."""
    if len(word) < 2 or not word.isascii() or not word.isalpha():
        return None
    lower = word.lower()
    if lower in FUNCTION_WORDS:
        return None
    return "~" + _stemmer().stemWord(lower)
