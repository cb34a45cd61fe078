# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The per-candidate work of ``Engine._judge`` and ``fingerprint.same_text``, compiled: which
page letters each candidate matched, and which pairs of candidates may be the same text."""

import numpy as np

from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset

from fingerprint.compiled.align cimport Alignment, SeedIndex, _grams_shared


cdef void _mask_row(uint8_t *row, const uint8_t *page, const uint8_t *work, const int64_t *runs,
                    Py_ssize_t n_runs) noexcept nogil:
    """Set ``row[p]`` for each page letter p that one of ``runs`` ((page_start, page_end,
    diagonal) triples) covers and where ``page[p]`` equals ``work[p + diagonal]``."""
    cdef Py_ssize_t r, p
    cdef int64_t d
    for r in range(n_runs):
        d = runs[3 * r + 2]
        for p in range(runs[3 * r], runs[3 * r + 1]):
            if page[p] == work[p + d]:
                row[p] = 1


def matched_masks(const uint8_t[::1] page, list works, list runs):
    """Boolean array (n_candidates, n_page_letters): page letter p is set for candidate c when
    one of its runs (page_start, page_end, diagonal) covers p and ``page[p]`` equals
    ``works[c][p + diagonal]``. page, works[c]: letter codes (uint8; or exact codes as uint8)."""
    cdef Py_ssize_t n = page.shape[0], c
    out = np.zeros((len(works), n), dtype=np.bool_)
    cdef uint8_t[:, ::1] mask = out.view(np.uint8)
    cdef const uint8_t[::1] work
    cdef const int64_t[::1] triples
    for c in range(len(works)):
        work = works[c]
        triples = np.array(runs[c], dtype=np.int64).reshape(-1)
        if triples.shape[0]:
            _mask_row(&mask[c, 0], &page[0], &work[0], &triples[0], triples.shape[0] // 3)
    return out


cdef void _pack(const uint8_t *masks, Py_ssize_t m, Py_ssize_t n, Py_ssize_t words,
                uint64_t *bits, int64_t *counts) noexcept nogil:
    """The m rows of n 0/1 bytes ``masks`` as bit rows of ``words`` uint64 each, into ``bits``
    (m x words); ``counts``: filled with each row's set bits."""
    cdef Py_ssize_t i, p, w, first, size
    cdef uint64_t word
    for i in range(m):
        counts[i] = 0
        for w in range(words):
            first = 64 * w
            size = min(64, n - first)
            word = 0
            for p in range(size):  # no branch: a mask is 0 or 1
                word |= (<uint64_t>masks[i * n + first + p]) << p
            bits[i * words + w] = word
            counts[i] += __builtin_popcountll(word)


cdef uint64_t *_packed(const uint8_t[:, ::1] masks, int64_t *counts) except NULL:
    """``_pack`` of a 2-D mask into a malloc'ed block (the caller frees it)."""
    cdef Py_ssize_t m = masks.shape[0], n = masks.shape[1], words = (n + 63) // 64
    cdef uint64_t *bits = <uint64_t *>malloc(m * words * sizeof(uint64_t) + 1)
    if bits == NULL:
        raise MemoryError()
    if m and n:
        _pack(&masks[0, 0], m, n, words, bits, counts)
    else:
        memset(counts, 0, m * sizeof(int64_t))
    return bits


def same_text_pairs(const uint8_t[:, ::1] masks, const int64_t[::1] sizes, double least):
    """Pairs (i, j), i < j, of candidates that may be the same text: letter counts ``sizes``
    within ``least`` of each other (the shorter at least ``least`` times the longer) and
    matched page letters mostly shared (2 * common >= the smaller count).
    masks: (n_candidates, n_page_letters) 0/1 bytes, each candidate's matched page letters."""
    cdef Py_ssize_t m = masks.shape[0], words = (masks.shape[1] + 63) // 64
    if m < 2:
        return []
    cdef int64_t *counts = <int64_t *>malloc(m * sizeof(int64_t))
    if counts == NULL:
        raise MemoryError()
    cdef uint64_t *bits = NULL
    try:
        bits = _packed(masks, counts)
        return _same_text_pairs(bits, counts, words, m, &sizes[0], least)
    finally:
        free(bits); free(counts)


cdef list _same_text_pairs(const uint64_t *bits, const int64_t *counts, Py_ssize_t words,
                           Py_ssize_t m, const int64_t *sizes, double least):
    """``same_text_pairs`` of masks packed by ``_pack`` (``bits``, ``counts``)."""
    cdef Py_ssize_t i, j, w
    cdef int64_t common, lo, hi
    pairs = []
    for i in range(m):
        for j in range(i + 1, m):
            lo, hi = min(sizes[i], sizes[j]), max(sizes[i], sizes[j])
            if lo < least * hi:
                continue
            common = 0
            for w in range(words):
                common += __builtin_popcountll(bits[i * words + w] & bits[j * words + w])
            if 2 * common >= min(counts[i], counts[j]):
                pairs.append((i, j))
    return pairs


def dominated(const uint8_t[:, ::1] masks, const int64_t[::1] group, int64_t min_own):
    """Boolean array (n_candidates,): candidate i is dominated when a candidate j of another
    ``group`` matched more page letters and leaves fewer than ``min_own`` of i's matched
    letters uncovered. masks: (n_candidates, n_page_letters) 0/1 bytes."""
    cdef Py_ssize_t m = masks.shape[0], words = (masks.shape[1] + 63) // 64
    out = np.zeros(m, dtype=np.bool_)
    cdef uint8_t[::1] flag = out.view(np.uint8)
    if m < 2:
        return out
    cdef int64_t *counts = <int64_t *>malloc(m * sizeof(int64_t))
    if counts == NULL:
        raise MemoryError()
    cdef uint64_t *bits = NULL
    try:
        bits = _packed(masks, counts)
        _dominated(bits, counts, words, m, &group[0], min_own, &flag[0])
        return out
    finally:
        free(bits); free(counts)


cdef void _dominated(const uint64_t *bits, const int64_t *counts, Py_ssize_t words,
                     Py_ssize_t m, const int64_t *group, int64_t min_own,
                     uint8_t *flag) noexcept nogil:
    """``dominated`` of masks packed by ``_pack`` (``bits``, ``counts``), into ``flag``."""
    cdef Py_ssize_t i, j, w
    cdef int64_t own
    for i in range(m):
        for j in range(m):
            if group[j] == group[i] or counts[j] <= counts[i]:
                continue
            own = 0
            for w in range(words):
                own += __builtin_popcountll(bits[i * words + w] & ~bits[j * words + w])
            if own < min_own:
                flag[i] = 1
                break


cdef extern from *:
    int __builtin_popcountll(unsigned long long) nogil


def compare_numbers(const uint8_t[::1] codes, const int64_t[::1] offsets, uint8_t[:, ::1] masks,
                    list passages, const int64_t[::1] boundaries, int digit_letter):
    """Numbers of the page compared with each candidate, as ``Engine._judge`` describes them
    -> (equal, differing): two int64 arrays (n_candidates,).

    A number is a maximal run of digit letters (code >= ``digit_letter``) from consecutive
    characters (``offsets``); it is equal for a candidate when all its letters are matched in
    that candidate's row of ``masks`` (0/1 bytes (n_candidates, n_letters)), whose digit
    letters are cleared in place where the number is not equal. It is counted when it lies
    strictly inside one of the candidate's ``passages`` ((page_start, page_end, ...) tuples in
    letters) and next to a matched letter of its sentence (``boundaries``: the letters that
    start a sentence)."""
    cdef Py_ssize_t m = masks.shape[0], w
    equal_out = np.zeros(m, dtype=np.int64)
    other_out = np.zeros(m, dtype=np.int64)
    cdef int64_t[::1] same = equal_out, other = other_out
    if codes.shape[0] == 0 or m == 0:
        return equal_out, other_out
    spans = [np.array([p[:2] for p in passages[w]], dtype=np.int64).reshape(-1, 2)
             for w in range(m)]
    cdef const int64_t **starts = <const int64_t **>malloc(m * sizeof(int64_t *))
    cdef Py_ssize_t *counts = <Py_ssize_t *>malloc(m * sizeof(Py_ssize_t))
    cdef const int64_t[:, ::1] view
    try:
        if starts == NULL or counts == NULL:
            raise MemoryError()
        for w in range(m):
            view = spans[w]
            starts[w] = &view[0, 0] if view.shape[0] else NULL
            counts[w] = view.shape[0]
        _compare_numbers(&codes[0], &offsets[0], codes.shape[0], &masks[0, 0], m, starts, 2,
                         counts, &boundaries[0] if boundaries.shape[0] else NULL,
                         boundaries.shape[0], digit_letter, &same[0], &other[0])
        return equal_out, other_out
    finally:
        free(starts); free(counts)


cdef int _compare_numbers(const uint8_t *codes, const int64_t *offsets, Py_ssize_t n,
                          uint8_t *masks, Py_ssize_t m, const int64_t **passages,
                          Py_ssize_t stride, const Py_ssize_t *n_passages,
                          const int64_t *boundaries, Py_ssize_t n_boundaries, int digit_letter,
                          int64_t *same, int64_t *other) except -1:
    """``compare_numbers`` on C arrays: ``masks`` (m rows of n bytes), candidate w's passages
    ``passages[w]`` (``n_passages[w]`` of them, ``stride`` int64 each, page_start and page_end
    first); adds to ``same`` and ``other`` (m each)."""
    cdef Py_ssize_t p, q, w, b, k, n_numbers = 0
    cdef int64_t start, end, last = n - 1
    cdef const int64_t *spans
    cdef uint8_t *row
    cdef bint inside
    # numbers (start, end) in letters, then the letters that open a sentence and whether each
    # number is wholly matched
    cdef int64_t *starts = <int64_t *>malloc((2 * n + 1) * sizeof(int64_t))
    cdef uint8_t *flags = <uint8_t *>malloc(2 * n + 2)
    if starts == NULL or flags == NULL:
        free(starts); free(flags)
        raise MemoryError()
    cdef int64_t *ends = starts + n
    cdef uint8_t *open_at = flags
    cdef uint8_t *equal_at = flags + n + 1
    with nogil:
        p = 0
        while p < n:
            if codes[p] < digit_letter:
                p += 1
                continue
            q = p + 1
            while q < n and codes[q] >= digit_letter and offsets[q] - offsets[q - 1] == 1:
                q += 1
            starts[n_numbers] = p
            ends[n_numbers] = q
            n_numbers += 1
            p = q
        if n_numbers:
            memset(open_at, 0, n + 1)
            for b in range(n_boundaries):
                open_at[boundaries[b]] = 1
        for w in range(m if n_numbers else 0):
            row = masks + w * n
            # every number's letters first, then the letters beside each number
            for k in range(n_numbers):
                equal_at[k] = 1
                for p in range(starts[k], ends[k]):
                    if not row[p]:
                        equal_at[k] = 0
                        break
                if not equal_at[k]:
                    for p in range(starts[k], ends[k]):
                        row[p] = 0
            spans = passages[w]
            for k in range(n_numbers):
                start, end = starts[k], ends[k]
                inside = False
                for b in range(n_passages[w]):
                    if start > spans[stride * b] and end < spans[stride * b + 1]:
                        inside = True
                        break
                if not inside:
                    continue
                if (row[max(start - 1, 0)] and not open_at[start]) \
                        or (row[min(end, last)] and not open_at[end]):
                    if equal_at[k]:
                        same[w] += 1
                    else:
                        other[w] += 1
    free(starts); free(flags)
    return 0


def letter_groups(const uint8_t[:, ::1] masks, const int64_t[::1] group):
    """Int64 array (n_page_letters,): for each page letter, the number of distinct ``group``
    labels (each in [0, n_candidates)) among the candidates whose row of ``masks``
    ((n_candidates, n_page_letters) 0/1 bytes) sets it."""
    cdef Py_ssize_t m = masks.shape[0], n = masks.shape[1]
    out = np.zeros(n, dtype=np.int64)
    cdef int64_t[::1] count = out
    if m == 0 or n == 0:
        return out
    cdef uint8_t *union = <uint8_t *>malloc(n)
    if union == NULL:
        raise MemoryError()
    _letter_groups(&masks[0, 0], m, n, &group[0], &count[0], union)
    free(union)
    return out


cdef void _letter_groups(const uint8_t *masks, Py_ssize_t m, Py_ssize_t n, const int64_t *group,
                         int64_t *count, uint8_t *union) noexcept nogil:
    """``letter_groups`` of the m rows of n bytes ``masks``, added into ``count`` (n);
    ``union``: n bytes of scratch."""
    cdef Py_ssize_t c, d, p
    for c in range(m):
        for d in range(c):
            if group[d] == group[c]:
                break
        else:  # the first member of its group: the union of its group's rows, counted once
            for p in range(n):
                union[p] = masks[c * n + p]
            for d in range(c + 1, m):
                if group[d] == group[c]:
                    for p in range(n):
                        union[p] |= masks[d * n + p]
            for p in range(n):
                count[p] += union[p]


cdef void _join(int64_t *group, Py_ssize_t m, list pairs):
    """Merge the groups (labels in [0, m), each its smallest member) of the candidates of each
    (i, j) of ``pairs``: afterwards each group is labelled by its smallest member again."""
    cdef Py_ssize_t i, j, c
    cdef int64_t a, b
    cdef bint changed = True
    while changed:  # m is small (the page's candidates): merge until nothing changes
        changed = False
        for pair in pairs:
            i, j = pair
            a, b = group[i], group[j]
            if a == b:
                continue
            if b < a:
                a, b = b, a
            for c in range(m):
                if group[c] == b:
                    group[c] = a
            changed = True


cdef Py_ssize_t _root(Py_ssize_t *parent, Py_ssize_t i) noexcept:
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


cdef class PairCache:
    """Remembered answers for pairs of works: {key: bool} in a C hash table (open addressing,
    linear probing; Fibonacci hashing, Knuth TAOCP vol. 3, 6.4). Keys are int64 other than 0
    (``known_groups``' pair keys); ``capacity``: the pairs it can hold (its table has at least
    twice as many slots); once full, it remembers nothing more until ``clear``."""

    cdef int64_t *keys
    cdef uint8_t *values
    cdef Py_ssize_t size, count, capacity
    cdef int shift

    def __cinit__(self, Py_ssize_t capacity):
        self.capacity = max(capacity, 1)
        self.size, self.shift = 2, 63
        while self.size < 2 * self.capacity:
            self.size *= 2
            self.shift -= 1
        self.keys = <int64_t *>calloc(self.size, sizeof(int64_t))
        self.values = <uint8_t *>calloc(self.size, 1)
        self.count = 0
        if self.keys == NULL or self.values == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.keys); free(self.values)

    def __len__(self):
        return self.count

    cdef inline Py_ssize_t _slot(self, int64_t key) noexcept nogil:
        cdef Py_ssize_t slot = <Py_ssize_t>((<uint64_t>key * 0x9E3779B97F4A7C15ULL) >> self.shift)
        while self.keys[slot] != 0 and self.keys[slot] != key:
            slot = (slot + 1) & (self.size - 1)
        return slot

    cdef int find(self, int64_t key) noexcept nogil:
        """1 (same), 0 (not the same) or -1 (not remembered)."""
        if key == 0:
            return -1
        cdef Py_ssize_t slot = self._slot(key)
        return self.values[slot] if self.keys[slot] == key else -1

    def get(self, int64_t key):
        """True, False, or None when ``key`` is not remembered."""
        cdef int found = self.find(key)
        return None if found < 0 else found == 1

    def put(self, int64_t key, bint same):
        """Remember ``same`` for ``key`` (not 0: ValueError) -> False when the cache is full
        and did not remember it, else True."""
        if key == 0:
            raise ValueError("a pair key is never 0")
        cdef Py_ssize_t slot = self._slot(key)
        if self.keys[slot] != key:
            if self.count == self.capacity:
                return False
            self.keys[slot] = key
            self.count += 1
        self.values[slot] = same
        return True

    def clear(self):
        """Forget every pair."""
        memset(self.keys, 0, self.size * sizeof(int64_t))
        self.count = 0


def known_groups(list pairs, const int64_t[::1] ids, PairCache known, dict more=None):
    """(labels, unknown) of candidates ``ids`` (int64 (n_candidates,), distinct, each below
    2**31) and candidate pairs ``pairs`` ((i, j) tuples): labels, a list of n_candidates ints,
    the connected components (each labelled by its smallest candidate) of the pairs that
    ``known`` (or else ``more``, {key: bool}) holds as the same; unknown, the pairs neither
    holds, in order. The key of candidates a and b is ``min(ids) << 32 | max(ids)``."""
    return _known_groups(pairs, &ids[0] if ids.shape[0] else NULL, ids.shape[0], known, more)


cdef tuple _known_groups(list pairs, const int64_t *ids, Py_ssize_t m, PairCache known,
                         dict more):
    """``known_groups`` of the m candidate numbers ``ids``."""
    cdef Py_ssize_t i, j, a, b
    cdef int64_t lo, hi
    cdef int same
    unknown = []
    cdef Py_ssize_t *parent = <Py_ssize_t *>malloc((m + 1) * sizeof(Py_ssize_t))
    if parent == NULL:
        raise MemoryError()
    try:
        for i in range(m):
            parent[i] = i
        for pair in pairs:
            i, j = pair
            lo, hi = min(ids[i], ids[j]), max(ids[i], ids[j])
            same = known.find((lo << 32) | hi)
            if same < 0 and more:
                found = more.get((lo << 32) | hi)
                same = -1 if found is None else found
            if same < 0:
                unknown.append(pair)
            elif same:
                a, b = _root(parent, i), _root(parent, j)
                if a < b:
                    parent[b] = a
                elif b < a:
                    parent[a] = b
        return [_root(parent, i) for i in range(m)], unknown
    finally:
        free(parent)


def exact_codes(const uint8_t[::1] codes, const int64_t[::1] offsets, str text,
                int digit_letter):
    """Letter codes (uint8 (n,)) in which each digit letter (code >= ``digit_letter``) becomes
    64 + the value of its character in ``text`` (an ASCII or full-width digit, at its
    ``offsets`` entry); see ``fingerprint.engine.exact_codes``."""
    cdef Py_ssize_t n = codes.shape[0], p
    cdef Py_UCS4 ch
    cdef long point
    out = np.empty(n, dtype=np.uint8)
    cdef uint8_t[::1] exact = out
    for p in range(n):
        if codes[p] >= digit_letter:
            ch = text[offsets[p]]
            point = <long>ch
            exact[p] = 64 + (point - 0xFF10 if point >= 0xFF10 else point - 0x30)
        else:
            exact[p] = codes[p]
    return out


cdef double _pairwise_sum(const double *a, Py_ssize_t n) noexcept nogil:
    """Sum of ``a[:n]`` in NumPy's order (``pairwise_sum`` of numpy/_core/src/umath/
    loops_utils.h.src: blocks of at most 128 values, eight accumulators each), so that it
    equals ``np.sum`` of the same values bit for bit."""
    cdef Py_ssize_t i, j, half
    cdef double res
    cdef double r[8]
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[i]
        return res
    if n <= 128:
        for j in range(8):
            r[j] = a[j]
        i = 8
        while i < n - (n % 8):
            for j in range(8):
                r[j] += a[i + j]
            i += 8
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        while i < n:
            res += a[i]
            i += 1
        return res
    half = n // 2
    half -= half % 8
    return _pairwise_sum(a, half) + _pairwise_sum(a + half, n - half)


def judge_page(const uint8_t[::1] page, const uint8_t[::1] codes, const int64_t[::1] offsets,
               const int64_t[::1] boundaries, list aligned, bint exact, PairCache known,
               same, limits, list joined=None):
    """The judgement of one page's aligned candidates, as ``Engine._judge`` describes it, in
    one call -> (labels, kept).

    page: the letters compared (``codes``, or the page's exact codes when ``exact``); codes,
    offsets, boundaries: the page's ``Letters`` fields. aligned: (work_id, prepared, alignment)
    of each candidate, prepared with ``.seeds.letters``, ``.exact`` and ``.number`` (a number
    below 2**31 naming the work and its revision), alignment with ``.runs`` and ``.passages``.
    known: the same-text answers of pairs (keys as ``known_groups``'), emptied first when the
    page's pairs would pass its capacity; ``same(i, j) -> bool`` answers the pairs it lacks
    whose k-grams pass ``align.grams_shared`` (the others are not the same text).
    limits: a ``fingerprint.config.JudgeLimits`` (read by attribute).
    joined: (i, j) pairs of candidates judged as one text although they are not the same
    text (a work and a work that holds it, ``fingerprint.parts``): the dominance and document
    frequency rules put them in one group; None or []: none.
    labels: the same-text group label of each candidate (list of int, ``joined`` left out);
    kept: (i, score, containment_page, containment_work) of each candidate that passes, in
    order (unrounded).
    """
    cdef Py_ssize_t m = len(aligned)
    cdef _Page pg
    _open_page(&pg, m, page.shape[0])
    try:
        seeds_of = _matched(&pg, page, codes, offsets, boundaries, aligned, exact,
                            limits.digit_letter)
        labels = _groups(&pg, seeds_of, known, same, limits.same_text_least,
                         limits.same_text_share, limits.same_text_frame, limits.min_own_letters,
                         joined)
        return labels, _kept(&pg, limits.max_number_mismatch, limits.number_evidence_letters,
                             limits.min_distinct_letters, limits.min_score)
    finally:
        free(pg.block)


cdef struct _Page:
    # The scratch of one judge_page call, carved out of one calloc'ed block: m candidates,
    # n page letters, words = ceil(n / 64).
    Py_ssize_t m, n, words
    void *block
    int64_t *sizes  # m: each work's letters
    int64_t *ids  # m: each prepared work's number
    int64_t *same_numbers  # m: the page's numbers equal to the work's
    int64_t *other_numbers  # m: and those that differ
    int64_t *group  # m: same-text group labels, joined pairs merged
    int64_t *counts  # m: each candidate's matched page letters
    uint64_t *bits  # m x words: matched page letters as bit rows
    int64_t *letter_groups  # n: groups matching each page letter
    double *weight  # n
    double *picked  # n
    const int64_t **spans  # m: each alignment's passages
    Py_ssize_t *n_spans  # m
    uint8_t *mask  # m x n: matched page letters as 0/1 bytes
    uint8_t *shadowed  # m: dominated by a candidate of another group
    uint8_t *union  # n


cdef int _open_page(_Page *pg, Py_ssize_t m, Py_ssize_t n) except -1:
    """Fill ``pg`` with zeroed scratch for m candidates and n page letters (``free(pg.block)``
    releases it)."""
    cdef Py_ssize_t words = (n + 63) // 64
    cdef Py_ssize_t eights = 6 * m + m * words + 3 * n + 2 * m  # 8-byte slots
    cdef char *at = <char *>calloc(1, eights * 8 + m * n + m + n + 1)
    if at == NULL:
        raise MemoryError()
    pg.m, pg.n, pg.words, pg.block = m, n, words, at
    pg.sizes = <int64_t *>at
    pg.ids = pg.sizes + m
    pg.same_numbers = pg.ids + m
    pg.other_numbers = pg.same_numbers + m
    pg.group = pg.other_numbers + m
    pg.counts = pg.group + m
    pg.bits = <uint64_t *>(pg.counts + m)
    pg.letter_groups = <int64_t *>(pg.bits + m * words)
    pg.weight = <double *>(pg.letter_groups + n)
    pg.picked = pg.weight + n
    pg.spans = <const int64_t **>(pg.picked + n)
    pg.n_spans = <Py_ssize_t *>(pg.spans + m)
    pg.mask = <uint8_t *>(pg.n_spans + m)
    pg.shadowed = pg.mask + m * n
    pg.union = pg.shadowed + m
    return 0


cdef list _matched(_Page *pg, const uint8_t[::1] page, const uint8_t[::1] codes,
                   const int64_t[::1] offsets, const int64_t[::1] boundaries, list aligned,
                   bint exact, int digit_letter):
    """Stage 1 of ``judge_page``: the page letters each candidate matched (``pg.mask``), the
    works' sizes and numbers, and the comparison of the page's numbers inside its passages
    (``_compare_numbers``). Returns each candidate's SeedIndex."""
    cdef Py_ssize_t m = pg.m, n = pg.n, c
    cdef const uint8_t[::1] exact_view
    cdef const uint8_t *work
    cdef SeedIndex seeds
    cdef Alignment aln
    cdef list seeds_of = []
    for c in range(m):
        _, prep, found = aligned[c]
        seeds, aln = prep.seeds, found
        seeds_of.append(seeds)
        if exact:
            exact_view = prep.exact
            work = &exact_view[0]
        else:
            work = seeds._letters
        if aln.n_runs:
            _mask_row(pg.mask + c * n, &page[0], work, aln._runs, aln.n_runs)
        pg.spans[c], pg.n_spans[c] = aln._passages, aln.n_passages
        pg.sizes[c] = seeds._n_letters
        pg.ids[c] = prep.number
    if m and n:
        _compare_numbers(&codes[0], &offsets[0], n, pg.mask, m, pg.spans, 4, pg.n_spans,
                         &boundaries[0] if boundaries.shape[0] else NULL,
                         boundaries.shape[0], digit_letter, pg.same_numbers, pg.other_numbers)
    return seeds_of


cdef list _groups(_Page *pg, list seeds_of, PairCache known, same, double least, double share,
                  double frame, int64_t min_own, list joined):
    """Stage 2 of ``judge_page``: the same-text groups of the candidates (pairs from
    ``_same_text_pairs``, answered from ``known`` or by ``_grams_shared`` and ``same``, and
    remembered), those of ``joined`` pairs merged (``_join``) into ``pg.group``, and the
    candidates dominated by one of another group (``_dominated``) in ``pg.shadowed``. Returns
    the labels (list of int, ``joined`` left out)."""
    cdef Py_ssize_t m = pg.m, c
    cdef int64_t lo, hi
    cdef const int64_t *ids = pg.ids
    labels = list(range(m))
    _pack(pg.mask, m, pg.n, pg.words, pg.bits, pg.counts)
    if m >= 2:
        pairs = _same_text_pairs(pg.bits, pg.counts, pg.words, m, pg.sizes, least)
        if pairs:
            if known.count + len(pairs) > known.capacity:
                known.clear()
            labels, unknown = _known_groups(pairs, ids, m, known, None)
            if unknown:  # answered, and remembered while the cache has room
                answers = {}
                for i, j in unknown:
                    lo, hi = min(ids[i], ids[j]), max(ids[i], ids[j])
                    answer = answers[(lo << 32) | hi] = bool(
                        _grams_shared(seeds_of[i], seeds_of[j], share, frame)
                        and same(i, j))
                    known.put((lo << 32) | hi, answer)
                labels, _ = _known_groups(pairs, ids, m, known, answers)
    for c in range(m):
        pg.group[c] = labels[c]
    if m >= 2:
        if joined:
            _join(pg.group, m, joined)
        _dominated(pg.bits, pg.counts, pg.words, m, pg.group, min_own, pg.shadowed)
    return labels


cdef list _kept(_Page *pg, double max_mismatch, double evidence, double min_distinct,
                double min_score):
    """Stage 3 of ``judge_page``: the candidates that pass the numbers, dominance and
    distinctive-letter rules, each page letter weighing 1 / the groups matching it (summed in
    NumPy's pairwise order). Returns [(i, score, containment_page, containment_work)]."""
    cdef Py_ssize_t m = pg.m, n = pg.n, c, p, k
    cdef const uint8_t *row
    cdef double distinct, cp, cw, score
    cdef list kept = []
    _letter_groups(pg.mask, m, n, pg.group, pg.letter_groups, pg.union)
    for p in range(n):
        pg.weight[p] = 1.0 / <double>max(pg.letter_groups[p], 1)
    for c in range(m):
        if pg.other_numbers[c] > max_mismatch * <double>(pg.same_numbers[c]
                                                         + pg.other_numbers[c]):
            continue
        if pg.shadowed[c]:
            continue
        row = pg.mask + c * n
        k = 0
        for p in range(n):
            if row[p]:
                pg.picked[k] = pg.weight[p]
                k += 1
        distinct = 0.0 + _pairwise_sum(pg.picked, k)
        if distinct + evidence * <double>pg.same_numbers[c] < min_distinct:
            continue
        cp = distinct / <double>n
        cw = min(1.0, distinct / <double>pg.sizes[c])
        score = max(cp, cw)
        if score < min_score:
            continue
        kept.append((c, score, cp, cw))
    return kept
