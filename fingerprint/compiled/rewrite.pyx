# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The rewrite stage, compiled: a text's words (jieba's, in order) cut into sentences with their
token and character codes, the rewrite keys of sentence windows, and the units of a page that
pair with a work's sentences (see ``fingerprint.rewrite.classes``, ``fingerprint.rewrite.stage``
and ``fingerprint.rewrite.align`` for what each is)."""

import zlib

import numpy as np

from libc.stdint cimport int64_t, uint64_t
from libc.math cimport fmin
from libc.stdlib cimport calloc, free, malloc

from fingerprint.compiled.align cimport _log2, _sort_i64
from fingerprint.compiled.mixing cimport splitmix64

# word codes that are no token (a token's code is its CRC-32, 0 or more)
cdef int64_t _NO_TOKEN = -1
cdef int64_t _SENTENCE_END = -2  # a word ending in 。！？!?；;… or a line end
cdef int64_t _FULL_STOP = -3  # ".": a sentence end before a space or at the end of the text
NO_TOKEN, SENTENCE_END, FULL_STOP = _NO_TOKEN, _SENTENCE_END, _FULL_STOP

cdef int64_t ENGLISH_PAIR = (<int64_t>1) << 32
cdef enum:
    MOST_LOW = 64  # window_keys: the most codes of a window it looks at


cdef Py_ssize_t _distinct(int64_t *values, Py_ssize_t n) noexcept nogil:
    """Sort values[:n] (the alignment's introsort) and keep each value once at the front;
    returns how many."""
    cdef Py_ssize_t t, found = 0
    if n == 0:
        return 0
    _sort_i64(values, n, 2 * _log2(n))
    for t in range(1, n):
        if values[t] != values[found]:
            found += 1
            values[found] = values[t]
    return found + 1


cdef inline bint _han(Py_UCS4 c) noexcept nogil:
    return 0x3400 <= c <= 0x9FFF or 0xF900 <= c <= 0xFAFF


cdef inline int _digit(Py_UCS4 c) noexcept nogil:
    """The value of an ASCII or full-width digit, else -1."""
    if 0x30 <= c <= 0x39:
        return <int>c - 0x30
    if 0xFF10 <= c <= 0xFF19:
        return <int>c - 0xFF10
    return -1


cdef inline bint _ends(list words, Py_ssize_t i, int64_t code):
    """Whether word ``i`` of ``words`` (its code ``code``, see ``WordCodes``) ends a sentence:
    the last word, a word ending in a sentence end, or a full stop before a word starting with
    a space."""
    cdef str after
    if i == len(words) - 1 or code == _SENTENCE_END:
        return True
    if code != _FULL_STOP:
        return False
    after = words[i + 1]
    return len(after) > 0 and after[0].isspace()


cdef uint64_t _FNV_PRIME = 0x100000001B3ULL


cdef class WordCodes:
    """word -> code, each word's code made once by ``make`` (a callable: str -> int64) on its
    first lookup and kept in an open-addressing table keyed by a 64-bit hash of the word's
    code points (FNV-1a, then splitmix64's finaliser): a lookup neither hashes a Python str
    nor compares one, which a dict does for every fresh word that rjieba makes. Two words of
    one 64-bit hash would share a code; among 500,000 words the odds of any such pair are
    about 7 in 10**9. ``len()``: words held; ``clear()`` forgets them."""

    cdef object make
    cdef uint64_t[::1] hashes  # 0: an empty slot
    cdef int64_t[::1] codes
    cdef Py_ssize_t count

    def __init__(self, make, Py_ssize_t capacity=1 << 16):
        self.make = make
        self._allocate(max(16, 1 << _log2(max(capacity, 1))))

    cdef void _allocate(self, Py_ssize_t capacity):
        self.hashes = np.zeros(capacity, np.uint64)
        self.codes = np.zeros(capacity, np.int64)
        self.count = 0

    def __len__(self):
        return self.count

    def clear(self):
        """Forget every word."""
        self._allocate(self.hashes.shape[0])

    def code(self, str word):
        """The code of ``word`` (made now when it is new)."""
        return self.get(word)

    cdef int64_t get(self, str word) except? -9:
        cdef uint64_t h = 0xCBF29CE484222325ULL
        cdef Py_UCS4 c
        cdef Py_ssize_t mask = self.hashes.shape[0] - 1, slot
        cdef int64_t code
        for c in word:
            h = (h ^ <uint64_t>c) * _FNV_PRIME
        h = splitmix64(h ^ <uint64_t>len(word)) | 1  # never 0, the empty slot
        slot = <Py_ssize_t>(h & mask)
        while self.hashes[slot] != 0:
            if self.hashes[slot] == h:
                return self.codes[slot]
            slot = (slot + 1) & mask
        code = self.make(word)
        self.hashes[slot] = h
        self.codes[slot] = code
        self.count += 1
        if 2 * self.count > mask:
            self._grow()
        return code

    cdef void _grow(self):
        cdef uint64_t[::1] hashes = self.hashes
        cdef int64_t[::1] codes = self.codes
        cdef Py_ssize_t i, slot, mask = 2 * hashes.shape[0] - 1, count = self.count
        self._allocate(mask + 1)
        for i in range(hashes.shape[0]):
            if hashes[i] != 0:
                slot = <Py_ssize_t>(hashes[i] & mask)
                while self.hashes[slot] != 0:
                    slot = (slot + 1) & mask
                self.hashes[slot] = hashes[i]
                self.codes[slot] = codes[i]
        self.count = count


def cut_sentences(list words, WordCodes seen, dict entries):
    """The sentences of a text from its ``words`` (str, in order, together the whole text):
    (starts, ends: lists of character offsets, end exclusive; tokens, token_at, chars,
    char_at, numbers, number_at, kept, kept_at: int64 arrays, sentence i's part of each
    running from ``x_at[i]`` to ``x_at[i + 1]``). ``tokens``: each sentence's distinct token
    codes, ascending; ``chars``: its distinct character codes, ascending (a Han character of
    a kept word: its code point; two adjacent English words: the CRC-32 of their tokens
    joined, plus 2**32); ``numbers``: the distinct values of its runs of ASCII and full-width
    digits, modulo 2**64 (as int64), ascending; ``kept``: the numbers of its kept words.
    ``seen``: word -> its code (a WordCodes, whose ``make`` gives a token's CRC-32,
    ``NO_TOKEN``, ``SENTENCE_END`` or ``FULL_STOP``); ``entries``: word -> token of each kept
    word. A stretch of words ending a sentence that keeps no word is no sentence."""
    cdef Py_ssize_t n = len(words), i, text_length = 0
    cdef Py_ssize_t token_n = 0, char_n = 0, number_n = 0, kept_n = 0, han, english = -1
    cdef Py_ssize_t token_0 = 0, char_0 = 0, number_0 = 0, kept_0 = 0, start = 0, at = 0
    cdef int64_t code
    cdef int d
    cdef bint in_run = False
    cdef uint64_t run = 0
    cdef Py_UCS4 c
    cdef str word
    cdef int64_t[::1] codes = np.empty(n, np.int64)
    for i in range(n):
        word = words[i]
        codes[i] = seen.get(word)
        text_length += len(word)
    token_array = np.empty(n, np.int64)
    char_array = np.empty(text_length + n, np.int64)
    number_array = np.empty(text_length, np.int64)
    kept_array = np.empty(n, np.int64)
    cdef int64_t[::1] tokens = token_array, chars = char_array, numbers = number_array
    cdef int64_t[::1] kept = kept_array
    token_at, char_at, number_at, kept_at = [0], [0], [0], [0]
    starts, ends = [], []
    for i in range(n):
        word = words[i]
        code = codes[i]
        if code >= 0:
            tokens[token_n] = code
            token_n += 1
            kept[kept_n] = i
            kept_n += 1
        han = 0
        for c in word:
            d = _digit(c)
            if d >= 0:
                run = run * 10 + d if in_run else d
                in_run = True
                continue
            if in_run:
                numbers[number_n] = <int64_t>run
                number_n += 1
                in_run = False
            if code >= 0 and _han(c):
                chars[char_n] = c
                char_n += 1
                han += 1
        if code >= 0 and han == 0:  # an English word: paired with the one before in its sentence
            if english >= 0:
                chars[char_n] = zlib.crc32(
                    (entries[words[english]] + entries[word]).encode()) | ENGLISH_PAIR
                char_n += 1
            english = i
        at += len(word)
        if _ends(words, i, code):
            if in_run:
                numbers[number_n] = <int64_t>run
                number_n += 1
                in_run = False
            if kept_n > kept_0:
                token_n = token_0 + _distinct(&tokens[token_0], token_n - token_0)
                char_n = char_0 + _distinct(&chars[char_0], char_n - char_0)
                number_n = number_0 + _distinct(&numbers[number_0], number_n - number_0)
                starts.append(start)
                ends.append(at)
                token_at.append(token_n)
                char_at.append(char_n)
                number_at.append(number_n)
                kept_at.append(kept_n)
            else:
                number_n = number_0
            start, english = at, -1
            token_0, char_0, number_0, kept_0 = token_n, char_n, number_n, kept_n
    return (starts, ends, token_array[:token_n], token_at, char_array[:char_n], char_at,
            number_array[:number_n], number_at, kept_array[:kept_n], kept_at)


cdef inline Py_ssize_t _most_keys(Py_ssize_t count, int key_tokens) noexcept nogil:
    """Room for the keys of ``count`` sentences: each sentence and each two adjacent ones give
    at most one key per pair of their ``key_tokens`` smallest codes."""
    return 2 * count * (key_tokens * (key_tokens - 1) // 2) + 1


cdef Py_ssize_t _window_keys(const int64_t *codes, const Py_ssize_t *at, Py_ssize_t count,
                             int min_tokens, int key_tokens, int64_t *keys) noexcept nogil:
    """``window_keys`` of ``count`` sentences whose codes are ``codes[at[s]:at[s + 1]]``,
    written to ``keys`` (room for ``_most_keys``) as the int64 of each key's 64 bits; returns
    how many. ``min_tokens`` and ``key_tokens``: at most MOST_LOW (checked by the callers)."""
    cdef Py_ssize_t s, a, b, p, q, got, n = 0
    cdef Py_ssize_t most = max(key_tokens, min_tokens)
    cdef int64_t low[MOST_LOW]
    cdef int64_t x
    for s in range(count):
        if at[s + 1] - at[s] >= min_tokens:
            got = min(key_tokens, at[s + 1] - at[s])
            for a in range(got):
                for b in range(a + 1, got):
                    keys[n] = <int64_t>((<uint64_t>codes[at[s] + a] << 32)
                                        | <uint64_t>codes[at[s] + b])
                    n += 1
    for s in range(count - 1):
        # the window's smallest distinct codes: a merge of the two sentences' sorted codes
        p, q, got = at[s], at[s + 1], 0
        while got < most and (p < at[s + 1] or q < at[s + 2]):
            if q >= at[s + 2] or p < at[s + 1] and codes[p] < codes[q]:
                x = codes[p]
                p += 1
            elif p >= at[s + 1] or codes[q] < codes[p]:
                x = codes[q]
                q += 1
            else:  # in both
                x = codes[p]
                p += 1
                q += 1
            low[got] = x
            got += 1
        if got < min_tokens:
            continue
        got = min(got, key_tokens)
        for a in range(got):
            for b in range(a + 1, got):
                keys[n] = <int64_t>((<uint64_t>low[a] << 32) | <uint64_t>low[b])
                n += 1
    return n


cdef void _check_tokens(int min_tokens, int key_tokens) except *:
    if max(key_tokens, min_tokens) > MOST_LOW:
        raise ValueError(f"key_tokens and min_tokens must be at most {MOST_LOW}")


def window_keys(const int64_t[::1] codes, sizes, int min_tokens, int key_tokens):
    """The rewrite keys (Python ints below 2**64, duplicates possible) of sentences given as
    ``codes`` (each sentence's distinct token codes, ascending, one after the other) and
    ``sizes`` (how many each has): for each sentence with at least ``min_tokens`` codes, then
    each two adjacent sentences whose codes together are at least ``min_tokens``, every pair
    (a, b), a < b, of the window's ``key_tokens`` smallest codes, as (a << 32) | b, pairs in
    ``itertools.combinations`` order."""
    cdef Py_ssize_t count = len(sizes), s, got
    _check_tokens(min_tokens, key_tokens)
    cdef Py_ssize_t[::1] at = np.zeros(count + 1, np.intp)
    for s in range(count):
        at[s + 1] = at[s] + sizes[s]
    cdef int64_t[::1] keys = np.empty(_most_keys(count, key_tokens), np.int64)
    cdef int64_t none = 0
    got = _window_keys(&codes[0] if codes.shape[0] else &none, &at[0], count, min_tokens,
                       key_tokens, &keys[0])
    return [<uint64_t>keys[s] for s in range(got)]


def page_keys(list words, WordCodes seen, int min_tokens, int key_tokens,
              Py_ssize_t max_sentences):
    """(keys, sentences) of a page from its ``words`` (str, in order, together the whole
    text), cut as ``cut_sentences`` cuts them: ``sentences``, how many of its first
    ``max_sentences`` sentences keep a token; ``keys``, the ``window_keys`` of those sentences'
    token codes, each once, as a uint64 array (sorted by their bits read as int64). What a
    page's candidate search needs, without the characters, numbers and kept words that only
    the verification of a candidate reads."""
    cdef Py_ssize_t n = len(words), i, t = 0, t0 = 0, count = 0, got
    cdef int64_t code
    _check_tokens(min_tokens, key_tokens)
    cdef int64_t[::1] tokens = np.empty(n + 1, np.int64)
    cdef Py_ssize_t[::1] at = np.zeros(max(min(n, max_sentences), 0) + 1, np.intp)
    for i in range(n):
        if count == max_sentences:
            break
        code = seen.get(<str>words[i])
        if code >= 0:
            tokens[t] = code
            t += 1
        if _ends(words, i, code):
            if t > t0:
                t = t0 + _distinct(&tokens[t0], t - t0)
                count += 1
                at[count] = t
            t0 = t
    keys = np.empty(_most_keys(count, key_tokens), np.int64)
    cdef int64_t[::1] out = keys
    got = _distinct(&out[0], _window_keys(&tokens[0], &at[0], count, min_tokens, key_tokens,
                                          &out[0]))
    return keys[:got].view(np.uint64), count


cdef int64_t CHAR_SPACE = (<int64_t>1) << 34  # added to character codes: apart from tokens
cdef uint64_t FIBONACCI = 0x9E3779B97F4A7C15ULL  # 2**64 / golden ratio: a multiplicative hash


def key_evidence(const int64_t[::1] places, const int64_t[::1] work, Py_ssize_t n_keys,
                 Py_ssize_t n_works, int64_t template_works):
    """(counts, holders, template) of a lookup of ``n_keys`` distinct rewrite keys whose
    postings are given as each one's key (its place among the keys, int64 (n,)) and work (its
    place among the ``n_works`` works of the postings, int64 (n,)): ``holders`` (list of n_keys
    ints), the distinct works that hold each key (0: a key the lookup did not find);
    ``template``, how many keys more than ``template_works`` works hold (template text);
    ``counts`` (list of n_works ints), for each work the other keys it holds
    (``RewriteStage.candidates``; ``holders`` serves ``RewriteStage._template``). Each
    (key, work) counts once, found in a hash table of the pairs (Fibonacci hashing, linear
    probing)."""
    cdef Py_ssize_t n = places.shape[0], size = 2, distinct = 0, t, slot
    cdef int shift = 63
    cdef int64_t template = 0, pair
    while size < 2 * n:
        size *= 2
        shift -= 1
    cdef int64_t *table = <int64_t *>calloc(size, sizeof(int64_t))  # pair + 1; 0: empty
    cdef Py_ssize_t *first = <Py_ssize_t *>malloc(n * sizeof(Py_ssize_t) + 1)
    cdef int64_t *held = <int64_t *>calloc(n_keys + 1, sizeof(int64_t))
    cdef int64_t *counts = <int64_t *>calloc(n_works + 1, sizeof(int64_t))
    try:
        if table == NULL or first == NULL or held == NULL or counts == NULL:
            raise MemoryError()
        for t in range(n):
            pair = places[t] * n_works + work[t] + 1
            slot = <Py_ssize_t>((<uint64_t>pair * FIBONACCI) >> shift)
            while table[slot] != 0 and table[slot] != pair:
                slot = (slot + 1) & (size - 1)
            if table[slot] == 0:  # the first posting of this (key, work)
                table[slot] = pair
                held[places[t]] += 1
                first[distinct] = t
                distinct += 1
        for t in range(n_keys):
            template += held[t] > template_works
        for t in range(distinct):
            if held[places[first[t]]] <= template_works:
                counts[work[first[t]]] += 1
        return ([counts[t] for t in range(n_works)], [held[t] for t in range(n_keys)],
                template)
    finally:
        free(table); free(first); free(held); free(counts)


cdef class _PageCodes:
    """A page's token and character codes (characters plus ``CHAR_SPACE``) in an open-addressing
    hash table: for each distinct code, how many page sentences hold it and a chain of them."""
    cdef int64_t[::1] code, count, head, owner, after
    cdef int shift
    cdef uint64_t mask

    def __init__(self, const int64_t[::1] tokens, token_sizes, const int64_t[::1] chars,
                 char_sizes):
        cdef Py_ssize_t total = len(tokens) + len(chars), size = 2, p = 0, s, t, n
        cdef int half
        cdef int64_t c
        cdef uint64_t slot
        self.shift = 63
        while size < 2 * total:
            size *= 2
            self.shift -= 1
        self.mask = size - 1
        self.code = np.full(size, -1, np.int64)
        self.count = np.zeros(size, np.int64)
        self.head = np.full(size, -1, np.int64)
        self.owner = np.empty(max(total, 1), np.int64)
        self.after = np.empty(max(total, 1), np.int64)
        for half in range(2):
            sizes = token_sizes if half == 0 else char_sizes
            t = 0
            for s in range(len(sizes)):
                for n in range(sizes[s]):
                    c = tokens[t] if half == 0 else chars[t] + CHAR_SPACE
                    t += 1
                    slot = self._slot(c)
                    self.code[slot] = c
                    self.count[slot] += 1
                    self.owner[p] = s
                    self.after[p] = self.head[slot]
                    self.head[slot] = p
                    p += 1

    cdef inline uint64_t _slot(self, int64_t c) noexcept nogil:
        """The slot of code c: its own, or the empty one where it would go."""
        cdef uint64_t slot = (<uint64_t>c * FIBONACCI) >> self.shift
        while self.code[slot] != -1 and self.code[slot] != c:
            slot = (slot + 1) & self.mask
        return slot


cdef bint _numbers_held(const int64_t[::1] work, Py_ssize_t w0, Py_ssize_t w1,
                        const int64_t[::1] page, const Py_ssize_t[::1] at, Py_ssize_t first,
                        Py_ssize_t size) noexcept nogil:
    """Whether page sentences first .. first + size - 1 (numbers page[at[s]:at[s + 1]]) hold
    at least three quarters of a work sentence's numbers work[w0:w1] (each distinct)."""
    cdef Py_ssize_t x, q, held = 0
    for x in range(w0, w1):
        for q in range(at[first], at[first + size]):
            if page[q] == work[x]:
                held += 1
                break
    return 4 * held >= 3 * (w1 - w0)


def unit_pairs(const int64_t[::1] work_tokens, work_token_sizes, const int64_t[::1] work_chars,
               work_char_sizes, const int64_t[::1] work_numbers, work_number_sizes,
               const int64_t[::1] page_tokens, page_token_sizes, const int64_t[::1] page_chars,
               page_char_sizes, const int64_t[::1] page_numbers, page_number_sizes,
               int limit, int min_shared, double max_unit_ratio, double pair_score):
    """The (work sentence, page unit) pairs that reach ``pair_score``, as four arrays: the work
    sentence j, the unit's first page sentence, its size (1, or 2: two adjacent page
    sentences) and the pair's score, in no particular order. Sentences are given by their
    distinct token, character and number codes, one sentence after the other (``*_tokens``,
    ``*_chars``, ``*_numbers``) and how many each has (``*_sizes``). A code held by more than
    ``limit`` page sentences counts for no pair; the score is the mean of the shares of the
    work sentence's tokens and characters (those the page can show: in at most ``limit`` page
    sentences, or none) found in the unit; a pair needs ``min_shared`` shared tokens, a unit
    of at most ``max_unit_ratio`` times the work sentence's characters, plus 4, and, when the
    work sentence has numbers, a unit holding three quarters of them. Memory: the page's
    codes and one row of counts (one per page sentence, reused for each work sentence),
    whatever the work's length."""
    cdef _PageCodes page = _PageCodes(page_tokens, page_token_sizes, page_chars,
                                      page_char_sizes)
    cdef Py_ssize_t m = len(page_token_sizes), n = len(work_token_sizes), j, i, k, e, t = 0, h = 0
    cdef Py_ssize_t touched_n, shown_tokens, shown_chars, shared, held, length, first
    cdef int half, u
    cdef int64_t c, df, p
    cdef uint64_t slot
    cdef double most, score
    cdef int64_t[::1] tokens = np.zeros(m + 1, np.int64), chars = np.zeros(m + 1, np.int64)
    cdef int64_t[::1] lengths = np.zeros(m + 1, np.int64), touched = np.empty(m, np.int64)
    cdef unsigned char[::1] seen = np.zeros(m + 1, np.uint8)
    cdef Py_ssize_t[::1] work_at = np.zeros(n + 1, np.intp), page_at = np.zeros(m + 1, np.intp)
    rows, firsts, sizes, scores = [], [], [], []
    for i in range(m):
        lengths[i] = page_char_sizes[i]
        page_at[i + 1] = page_at[i] + page_number_sizes[i]
    for j in range(n):
        work_at[j + 1] = work_at[j] + work_number_sizes[j]
    for j in range(n):
        touched_n = shown_tokens = shown_chars = 0
        for half in range(2):
            for e in range(work_token_sizes[j] if half == 0 else work_char_sizes[j]):
                if half == 0:
                    c = work_tokens[t]
                    t += 1
                else:
                    c = work_chars[h] + CHAR_SPACE
                    h += 1
                slot = page._slot(c)
                df = page.count[slot]
                if df > limit:
                    continue
                if half == 0:
                    shown_tokens += 1
                else:
                    shown_chars += 1
                p = page.head[slot]
                while p != -1:
                    i = page.owner[p]
                    if half == 0:
                        tokens[i] += 1
                    else:
                        chars[i] += 1
                    if not seen[i]:
                        seen[i] = 1
                        touched[touched_n] = i
                        touched_n += 1
                    p = page.after[p]
        most = max_unit_ratio * work_char_sizes[j] + 4
        for e in range(touched_n):
            i = touched[e]
            # the units holding page sentence i: i alone, (i, i + 1), and (i - 1, i) unless
            # i - 1 was touched too (then it was reached from there)
            for u in range(3):
                first, k = (i, 1) if u == 0 else (i, 2) if u == 1 else (i - 1, 2)
                if first < 0 or first + k > m or u == 2 and seen[i - 1]:
                    continue
                shared = tokens[first] + (tokens[first + 1] if k == 2 else 0)
                held = chars[first] + (chars[first + 1] if k == 2 else 0)
                length = lengths[first] + (lengths[first + 1] if k == 2 else 0)
                score = (fmin(1.0, shared / <double>max(1, shown_tokens))
                         + fmin(1.0, held / <double>max(1, shown_chars))) / 2
                if shared >= min_shared and length <= most and score >= pair_score and (
                        work_at[j] == work_at[j + 1] or _numbers_held(
                            work_numbers, work_at[j], work_at[j + 1], page_numbers, page_at,
                            first, k)):
                    rows.append(j)
                    firsts.append(first)
                    sizes.append(k)
                    scores.append(score)
        for e in range(touched_n):
            i = touched[e]
            tokens[i] = chars[i] = seen[i] = 0
    return (np.array(rows, np.int64), np.array(firsts, np.int64), np.array(sizes, np.int64),
            np.array(scores, np.float64))
