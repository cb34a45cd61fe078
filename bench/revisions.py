"""English revisions of the kinds people make, by four generators of their own, at two strengths.

Each edit is ``edit(text, rng, kit) -> str`` as in ``bench.edits``; every page is wrapped in a
portal's header and footer. None of the generators shares anything with the engine (its
rewrite stage stems words and ignores function words; no generator reads either). The
generators, each applied to a share ``rate`` of the sentences (or of the phrases it knows):

- ``clauses``: a leading subordinate clause ("When ..., ...") moved to the end; two clauses
  joined by ", and" / ", but" / ";" split into two sentences; two short adjacent sentences
  merged into one with ", and" or "; ";
- ``voice``: "<subject> <verb>s <object>." made passive ("<Object> is <verb>ed by <subject>.")
  and passive sentences made active, verb forms from lemminflect;
- ``paraphrase``: stock phrases rewritten ("in order to" -> "to", "is able to" -> "can", ...)
  and plain words swapped for another word of the same sense, from tables below (none from
  the corpus), with the inflection kept;
- ``cuts``: adverbs in -ly, bracketed asides and whole sentences deleted.

*light*: each generator at ``LIGHT`` (a fifth) and no sentence moved; *heavy*: each at
``HEAVY`` (a half) and a fifth of the adjacent sentence pairs swapped.
"""

from __future__ import annotations

import random
import re

from bench.edits import EN_SENTENCE, EditKit, header_footer

LIGHT, HEAVY = 0.2, 0.5
HEAVY_SWAP = 0.2  # share of adjacent sentence pairs swapped by the heavy revision
MAX_SUBJECT_WORDS = 5  # a voice change needs a subject this short

_LEADING = re.compile(r"^(When|If|Although|Because|While|Since|Unless|After|Before|Once|As) "
                      r"([^,]{8,}), (.+?)([.!?])$")
_JOINED = re.compile(r"^(.{20,}?)(, and |, but |; )(.{20,})([.!?])$")
_PASSIVE = re.compile(r"^(.{3,}?) (is|are|was|were) (\w+ed) by (.{3,}?)([.!?])$")
_WORDLIKE = re.compile(r"^[A-Za-z]+$")
_NOT_SUBJECT_END = {"the", "a", "an", "of", "for", "to", "in", "with", "by", "and", "or", "is",
                    "are", "was", "were", "be", "been", "has", "have", "not", "that", "which"}
_ASIDE = re.compile(r"\s*\([^()]{1,80}\)")
_ADVERB = re.compile(r"\b(?!only\b|early\b|family\b|apply\b|reply\b|supply\b)\w{4,}ly\b ?")

PHRASES = [
    ("in order to", "to"), ("is able to", "can"), ("are able to", "can"),
    ("a number of", "several"), ("for example", "for instance"), ("as well as", "and"),
    ("in addition", "also"), ("at the same time", "meanwhile"), ("it is possible to", "one can"),
    ("make use of", "use"), ("due to the fact that", "because"), ("in the case of", "for"),
    ("with respect to", "regarding"), ("is used to", "serves to"), ("a lot of", "many"),
    ("in most cases", "usually"), ("as a result", "so"), ("on the other hand", "conversely"),
    ("in other words", "that is"), ("at least", "no fewer than"), ("such as", "like"),
    ("is equivalent to", "is the same as"), ("refers to", "means"), ("depends on", "rests on"),
    ("there is no", "no"), ("is not", "isn't"), ("does not", "doesn't"), ("cannot", "can't"),
]
WORDS = [
    ("value", "result"), ("create", "construct"), ("object", "item"),
    ("method", "procedure"), ("argument", "parameter"), ("list", "sequence"),
    ("name", "identifier"), ("type", "kind"), ("raise", "throw"), ("error", "failure"),
    ("define", "declare"), ("evaluate", "compute"), ("specify", "state"), ("ignore", "skip"),
    ("omit", "leave out"), ("contain", "include"), ("execute", "run"), ("statement", "command"),
    ("expression", "formula"), ("section", "part"), ("following", "next"), ("new", "fresh"),
    ("new", "novel"), ("unless", "except when"), ("must", "has to"), ("should", "ought to"),
    ("may", "might"), ("normally", "ordinarily"), ("instead", "in its place"),
]
_PHRASE = {a: b for a, b in PHRASES}
_WORD = {a: b for a, b in WORDS} | {b: a for a, b in WORDS if " " not in b}


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[1:2].islower() or len(text) == 1 else text


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def clauses(sentences: list[str], rate: float, rng: random.Random) -> list[str]:
    """The ``clauses`` generator (see the module docstring)."""
    out: list[str] = []
    i = 0
    while i < len(sentences):
        s = sentences[i]
        if rng.random() < rate:
            if m := _LEADING.match(s):
                out.append(f"{_upper_first(m[3])} {m[1].lower()} {m[2]}{m[4]}")
            elif m := _JOINED.match(s):
                out += [f"{m[1]}.", f"{_upper_first(m[3].strip())}{m[4]}"]
            elif i + 1 < len(sentences) and len(s) + len(sentences[i + 1]) < 200 \
                    and s[-1:] == ".":
                glue = rng.choice([", and ", "; "])
                out.append(s[:-1] + glue + _lower_first(sentences[i + 1]))
                i += 1
            else:
                out.append(s)
        else:
            out.append(s)
        i += 1
    return out


def _verb(word: str) -> str | None:
    """The lemma of a third-person or past-tense verb form, else None."""
    from lemminflect import getAllLemmas, getInflection

    lemmas = getAllLemmas(word).get("VERB")
    if not lemmas or lemmas[0] in ("be", "have", "do"):
        return None
    forms = getInflection(lemmas[0], "VBZ") + getInflection(lemmas[0], "VBD")
    return lemmas[0] if word in forms else None


def voice(sentences: list[str], rate: float, rng: random.Random) -> list[str]:
    """The ``voice`` generator (see the module docstring)."""
    from lemminflect import getInflection

    out = []
    for s in sentences:
        if rng.random() >= rate:
            out.append(s)
            continue
        if m := _PASSIVE.match(s):
            lemma = _verb(m[3]) or m[3]
            active = getInflection(lemma, "VBZ" if m[2] in ("is", "are") else "VBD")
            out.append(f"{_upper_first(m[4])} {active[0] if active else m[3]} "
                       f"{_lower_first(m[1])}{m[5]}")
            continue
        words = s.split(" ")
        for k in range(1, min(MAX_SUBJECT_WORDS, len(words) - 3) + 1):
            if not _WORDLIKE.match(words[k - 1]) or words[k - 1].lower() in _NOT_SUBJECT_END:
                break
            lemma = _verb(words[k])
            if lemma and words[-1][-1:] in ".!?" and _WORDLIKE.match(words[k + 1]):
                participle = getInflection(lemma, "VBN")
                past = words[k] not in getInflection(lemma, "VBZ")
                obj = " ".join(words[k + 1:])
                out.append(f"{_upper_first(obj[:-1])} {'was' if past else 'is'} "
                           f"{participle[0] if participle else words[k]} by "
                           f"{_lower_first(' '.join(words[:k]))}{obj[-1]}")
                break
        else:
            out.append(s)
    return out


def paraphrase(sentences: list[str], rate: float, rng: random.Random) -> list[str]:
    """The ``paraphrase`` generator (see the module docstring)."""
    from lemminflect import getAllLemmas, getInflection

    def phrase(m: re.Match) -> str:
        return _PHRASE[m[0].lower()] if rng.random() < rate else m[0]

    def word(m: re.Match) -> str:
        w = m[0]
        for lemma in {x for xs in getAllLemmas(w.lower()).values() for x in xs} | {w.lower()}:
            other = _WORD.get(lemma)
            if other is None or rng.random() >= rate:
                continue
            if w.lower() != lemma:  # keep the inflection, or leave the word
                tag = next((t for t in ("VBZ", "VBG", "NNS", "VBN", "VBD")
                            if w.lower() in getInflection(lemma, t)), None)
                pos = "NOUN" if tag == "NNS" else "VERB"
                if tag is None or " " in other or pos not in getAllLemmas(other):
                    return w
                other = (getInflection(other, tag) or [other])[0]
            return _upper_first(other) if w[:1].isupper() else other
        return w

    pattern = re.compile(r"\b(" + "|".join(map(re.escape, _PHRASE)) + r")\b", re.IGNORECASE)
    return [re.sub(r"(?<![-\w])[A-Za-z]{3,}(?![-\w])", word, pattern.sub(phrase, s)) for s in sentences]


def cuts(sentences: list[str], rate: float, rng: random.Random) -> list[str]:
    """The ``cuts`` generator (see the module docstring): asides and adverbs at ``rate``,
    whole sentences at half of it."""
    out = []
    for s in sentences:
        if rng.random() < rate / 2 and len(sentences) > 3:
            continue
        s = _ASIDE.sub(lambda m: "" if rng.random() < rate else m[0], s)
        out.append(_ADVERB.sub(lambda m: "" if rng.random() < rate else m[0], s))
    return out


def revise(text: str, rng: random.Random, kit: EditKit, rate: float, swap: float) -> str:
    """All four generators at ``rate``, then ``swap`` of the adjacent sentence pairs swapped."""
    pieces = EN_SENTENCE.split(text.strip())
    for generator in (cuts, paraphrase, voice, clauses):
        pieces = generator(pieces, rate, rng)
    for i in range(len(pieces) - 1):
        if rng.random() < swap:
            pieces[i], pieces[i + 1] = pieces[i + 1], pieces[i]
    return header_footer(" ".join(pieces), rng, kit)


REVISION_EDITS = {
    "revise_light": lambda text, rng, kit: revise(text, rng, kit, LIGHT, 0.0),
    "revise_heavy": lambda text, rng, kit: revise(text, rng, kit, HEAVY, HEAVY_SWAP),
}
"""Edit name -> English revision edit, light then heavy (the benchmark table's columns)."""

REVISION_COLUMNS = {"revise_light": "revise light (en)", "revise_heavy": "revise heavy (en)"}
