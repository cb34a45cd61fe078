# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Seed-and-extend alignment of a page's letters with one work, compiled (see
``fingerprint.verify`` for the method and its parameters)."""

cimport cython
from libc.stdint cimport int64_t, uint8_t
from libc.stdlib cimport free, malloc, qsort
from libc.string cimport memcpy

import numpy as np

from fingerprint.windows import kgram_codes

cdef int MAX_LOOKBACK = 8  # chains a run may join, newest first
cdef enum:
    LANES = 8  # binary searches of the seed step run side by side


cdef void _sort_records(void *base, Py_ssize_t n, size_t size,
                        int (*cmp)(const void *, const void *) noexcept nogil) noexcept nogil:
    """``qsort(base, n, size, cmp)`` for records of at most 128 bytes: an insertion sort up to
    16 records (a page's candidates have a few runs and chains each, and libc's qsort costs
    more to set up than such a sort), qsort beyond."""
    if n > 16:
        qsort(base, n, size, cmp)
        return
    cdef char record[128]
    cdef char *a = <char *>base
    cdef Py_ssize_t i, j
    for i in range(1, n):
        memcpy(record, a + i * size, size)
        j = i - 1
        while j >= 0 and cmp(a + j * size, record) > 0:
            memcpy(a + (j + 1) * size, a + j * size, size)
            j -= 1
        memcpy(a + (j + 1) * size, record, size)


cdef void _sift_down(int64_t *a, Py_ssize_t root, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t child
    cdef int64_t top = a[root]
    while 2 * root + 1 < n:
        child = 2 * root + 1
        if child + 1 < n and a[child + 1] > a[child]:
            child += 1
        if a[child] <= top:
            break
        a[root] = a[child]
        root = child
    a[root] = top


cdef void _sort_i64(int64_t *a, Py_ssize_t n, int depth) noexcept nogil:
    """Sort ``a[:n]`` ascending: introsort (Musser 1997), i.e. quicksort with a median-of-three
    pivot and Hoare's partition, heapsort below ``depth`` levels, insertion sort on short
    parts. Inlined comparisons: libc's qsort calls a comparison function per step."""
    cdef Py_ssize_t i, j
    cdef int64_t pivot, x, lo, mid, hi
    while n > 16:
        if depth == 0:
            for i in range(n // 2 - 1, -1, -1):
                _sift_down(a, i, n)
            for i in range(n - 1, 0, -1):
                a[0], a[i] = a[i], a[0]
                _sift_down(a, 0, i)
            return
        depth -= 1
        lo, mid, hi = a[0], a[n // 2], a[n - 1]
        pivot = max(min(lo, mid), min(max(lo, mid), hi))
        i, j = -1, n
        while True:
            i += 1
            while a[i] < pivot:
                i += 1
            j -= 1
            while a[j] > pivot:
                j -= 1
            if i >= j:
                break
            a[i], a[j] = a[j], a[i]
        # a[:j + 1] <= pivot <= a[j + 1:]: sort the smaller part first, then loop on the other
        if j + 1 < n - j - 1:
            _sort_i64(a, j + 1, depth)
            a += j + 1
            n -= j + 1
        else:
            _sort_i64(a + j + 1, n - j - 1, depth)
            n = j + 1
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


cdef int _cmp_run(const void *a, const void *b) noexcept nogil:
    # runs are 4 int64: page start, page end, diagonal, matched; compared as tuples
    cdef const int64_t *x = <const int64_t *>a
    cdef const int64_t *y = <const int64_t *>b
    cdef int f
    for f in range(4):
        if x[f] != y[f]:
            return (x[f] > y[f]) - (x[f] < y[f])
    return 0


cdef struct Chain:
    int64_t ps, pe, ws, we, cov
    int64_t first_run, n_runs  # its runs: chain_runs[first_run : first_run + n_runs] (linked)
    int64_t order  # creation order (ties of the length sort keep it)
    int64_t last_run  # the last run appended (chain of run indices through run_next)


cdef int _cmp_chain_longest(const void *a, const void *b) noexcept nogil:
    cdef const Chain *x = <const Chain *>a
    cdef const Chain *y = <const Chain *>b
    cdef int64_t lx = x.pe - x.ps, ly = y.pe - y.ps
    if lx != ly:
        return (lx < ly) - (lx > ly)
    return (x.order > y.order) - (x.order < y.order)


cdef int _cmp_chain_page(const void *a, const void *b) noexcept nogil:
    cdef const Chain *x = <const Chain *>a
    cdef const Chain *y = <const Chain *>b
    cdef int64_t u[5]
    cdef int64_t v[5]
    u[0], u[1], u[2], u[3], u[4] = x.ps, x.pe, x.ws, x.we, x.cov
    v[0], v[1], v[2], v[3], v[4] = y.ps, y.pe, y.ws, y.we, y.cov
    cdef int f
    for f in range(5):
        if u[f] != v[f]:
            return (u[f] > v[f]) - (u[f] < v[f])
    return 0


cdef int _log2(Py_ssize_t n) noexcept nogil:
    cdef int bits = 0
    while n > 1:
        n >>= 1
        bits += 1
    return bits


cdef int64_t _union(int64_t *starts, int64_t *ends, int64_t n) noexcept nogil:
    """Length of the union of intervals [starts, ends) given sorted by start."""
    cdef int64_t total = 0, reach = 0, i
    cdef bint have = False
    for i in range(n):
        if not have or starts[i] >= reach:
            total += ends[i] - starts[i]
            reach = ends[i]
            have = True
        elif ends[i] > reach:
            total += ends[i] - reach
            reach = ends[i]
    return total


def sort_int64(int64_t[::1] values, int depth=-1):
    """Sort ``values`` (int64) in place, ascending, by the alignment's sort (``_sort_i64``),
    given ``depth`` quicksort levels before heapsort (-1: twice log2 of the length); for
    its property test."""
    _sort_i64(&values[0] if values.shape[0] else NULL, values.shape[0],
              2 * _log2(values.shape[0]) if depth < 0 else depth)


cdef class SeedIndex:
    """The k-grams of a work's letters, sorted, prepared once per work.

    seeds: int64 (n - k + 1, 2): each k-gram's code and letter position, ordered by code then
    position (a code and its position side by side: the alignment's seed step reads both
    with one memory access after its search); letters: the work's letter codes (uint8 (n,));
    k: k-gram length in letters. ``codes`` and ``positions`` are the two columns.
    """

    def __init__(self, seeds, letters, int k):
        self.seeds = np.ascontiguousarray(seeds, dtype=np.int64).reshape(-1, 2)
        self.letters = np.ascontiguousarray(letters, dtype=np.uint8)
        self.k = k
        cdef const int64_t[:, ::1] pairs = self.seeds
        cdef const uint8_t[::1] work = self.letters
        self._n_codes, self._n_letters = pairs.shape[0], work.shape[0]
        self._seeds = &pairs[0, 0] if pairs.shape[0] else NULL
        self._letters = &work[0] if work.shape[0] else NULL

    @property
    def codes(self):
        """Sorted k-gram codes (int64 (n - k + 1,), a view)."""
        return self.seeds[:, 0]

    @property
    def positions(self):
        """Letter position of each sorted code (int64 (n - k + 1,), a view)."""
        return self.seeds[:, 1]

    @property
    def n_letters(self):
        """Letters in the work."""
        return self._n_letters

    @staticmethod
    def build(codes, int k):
        """Index the k-grams of letter codes (uint8 (n,)) -> SeedIndex."""
        grams = kgram_codes(codes, k)
        order = np.argsort(grams, kind="stable")
        return SeedIndex(np.stack((grams[order], order.astype(np.int64)), axis=1), codes, k)


cdef class Alignment:
    """Result of aligning a page against one work (made for every candidate of every page; its
    numbers live in one C block that ``fingerprint.compiled.judge`` reads directly).

    passages: list of (page_start, page_end, work_start, work_end) in letters, end exclusive,
    ordered by page position. matched: matched letters of each passage. page_covered /
    work_covered: matched letters (inside seeds) of the kept passages on each side.
    runs: the runs of the kept passages, (page_start, page_end, diagonal) in letters: page
    letter p of a run matches work letter p + diagonal when the two are equal.
    ``Alignment(passages, matched, page_covered, work_covered, runs)`` builds one from those
    lists (all empty by default); two are equal when their five fields are.
    """

    def __cinit__(self):
        self._passages = NULL

    def __init__(self, passages=(), matched=(), int64_t page_covered=0,
                 int64_t work_covered=0, runs=()):
        if len(matched) != len(passages):
            raise ValueError("one matched count per passage")
        self._allocate(len(passages), len(runs))
        cdef Py_ssize_t i, f
        for i, passage in enumerate(passages):
            for f in range(4):
                self._passages[4 * i + f] = passage[f]
            self._matched[i] = matched[i]
        for i, run in enumerate(runs):
            for f in range(3):
                self._runs[3 * i + f] = run[f]
        self.page_covered, self.work_covered = page_covered, work_covered

    cdef int _allocate(self, Py_ssize_t n_passages, Py_ssize_t n_runs) except -1:
        free(self._passages)
        self._passages = <int64_t *>malloc((5 * n_passages + 3 * n_runs + 1) * sizeof(int64_t))
        if self._passages == NULL:
            raise MemoryError()
        self._matched = self._passages + 4 * n_passages
        self._runs = self._matched + n_passages
        self.n_passages, self.n_runs = n_passages, n_runs
        return 0

    def __dealloc__(self):
        free(self._passages)

    @property
    def passages(self):
        """[(page_start, page_end, work_start, work_end)] in letters."""
        cdef const int64_t *p = self._passages
        return [(p[4 * i], p[4 * i + 1], p[4 * i + 2], p[4 * i + 3])
                for i in range(self.n_passages)]

    @property
    def matched(self):
        """Matched letters of each passage (list of int)."""
        return [self._matched[i] for i in range(self.n_passages)]

    @cython.boundscheck(True)  # the offsets come from the caller: an index past them raises
    def characters(self, const int64_t[:] page_offsets, const int64_t[:] work_offsets):
        """The passages in characters: [(page_start, page_end, work_start, work_end)], end
        exclusive, from each letter's character (``page_offsets``, ``work_offsets``: int64, a
        letter's index into its text, as ``Letters.offsets``). Raises IndexError when a passage
        lies past them."""
        cdef const int64_t *p = self._passages
        return [(page_offsets[p[4 * i]], page_offsets[p[4 * i + 1] - 1] + 1,
                 work_offsets[p[4 * i + 2]], work_offsets[p[4 * i + 3] - 1] + 1)
                for i in range(self.n_passages)]

    @property
    def runs(self):
        """[(page_start, page_end, diagonal)] in letters."""
        cdef const int64_t *r = self._runs
        return [(r[3 * i], r[3 * i + 1], r[3 * i + 2]) for i in range(self.n_runs)]

    def _fields(self):
        return (self.passages, self.matched, self.page_covered, self.work_covered, self.runs)

    def __eq__(self, other):
        if not isinstance(other, Alignment):
            return NotImplemented
        return self._fields() == (<Alignment>other)._fields()

    __hash__ = None

    def __repr__(self):
        return "Alignment(passages={!r}, matched={!r}, page_covered={}, work_covered={}, " \
               "runs={!r})".format(*self._fields())


def shared_codes(SeedIndex a, SeedIndex b):
    """(how many of ``a``'s k-gram codes occur in ``b``, how many of ``b``'s occur in ``a``),
    each code counted as often as it occurs in its own work: one merge of the two sorted
    code columns."""
    cdef Py_ssize_t a_in_b, b_in_a
    _shared(a, b, &a_in_b, &b_in_a)
    return a_in_b, b_in_a


cdef void _shared(SeedIndex a, SeedIndex b, Py_ssize_t *a_in_b, Py_ssize_t *b_in_a
                  ) noexcept nogil:
    cdef const int64_t *x = a._seeds
    cdef const int64_t *y = b._seeds
    cdef Py_ssize_t i = 0, j = 0, n = a._n_codes, m = b._n_codes, i0, j0
    cdef int64_t code
    a_in_b[0] = b_in_a[0] = 0
    while i < n and j < m:
        if x[2 * i] < y[2 * j]:
            i += 1
        elif y[2 * j] < x[2 * i]:
            j += 1
        else:  # a code of both: its run in each
            code, i0, j0 = x[2 * i], i, j
            while i < n and x[2 * i] == code:
                i += 1
            while j < m and y[2 * j] == code:
                j += 1
            a_in_b[0] += i - i0
            b_in_a[0] += j - j0


def grams_shared(SeedIndex a, SeedIndex b, double share, double frame):
    """Whether enough of each work's k-grams occur in the other for the two to be the same
    text (``fingerprint.same_text``: ``share`` of the letters inside each aligned span, at
    most ``frame`` of each work outside it): a necessary condition of that alignment, ten
    times cheaper. Each letter outside the aligned part of a work (at most ``frame`` of it,
    then ``1 - share`` of the span) breaks at most k of its k-grams."""
    return _grams_shared(a, b, share, frame)


cdef bint _grams_shared(SeedIndex a, SeedIndex b, double share, double frame) noexcept nogil:
    cdef Py_ssize_t a_in_b, b_in_a
    if a._n_codes == 0 or b._n_codes == 0:
        return False
    _shared(a, b, &a_in_b, &b_in_a)
    return a_in_b >= _least_shared(a, share, frame) and b_in_a >= _least_shared(b, share, frame)


cdef inline double _least_shared(SeedIndex work, double share, double frame) noexcept nogil:
    """The k-grams of ``work`` that a same text keeps at least (see ``grams_shared``)."""
    return (1 - frame) * (1 - work.k * (1 - share)) * work._n_letters - work.k


cdef struct _Scratch:
    # The buffers of ``_align``, kept across the works of one page and grown when a work needs
    # more: per page k-gram its first seed and seed count (``lows``, 2 x grams), and per seed
    # (``cap``) its packed pair, run, chain, next run and covered spans (``us``, 2 x cap).
    int64_t *lows
    int64_t *pairs
    int64_t *runs
    Chain *chains
    int64_t *run_next
    int64_t *us
    Py_ssize_t grams, cap


cdef int _fit_scratch(_Scratch *s, Py_ssize_t grams, Py_ssize_t cap) except -1:
    """Make ``s`` hold at least ``grams`` k-grams' and ``cap`` seeds' buffers (contents not
    kept when they grow)."""
    cdef void *block
    if grams > s.grams:
        free(s.lows)
        s.lows = <int64_t *>malloc(2 * grams * sizeof(int64_t))
        s.grams = grams if s.lows != NULL else 0
        if s.lows == NULL:
            raise MemoryError()
    if cap > s.cap:
        cap = max(cap, 2 * s.cap)
        free(s.pairs)
        block = malloc(cap * (8 * sizeof(int64_t) + sizeof(Chain)))
        s.pairs = <int64_t *>block
        s.cap = cap if block != NULL else 0
        if block == NULL:
            raise MemoryError()
        s.runs = s.pairs + cap
        s.run_next = s.runs + 4 * cap
        s.us = s.run_next + cap
        s.chains = <Chain *>(s.us + 2 * cap)
    return 0


cdef void _free_scratch(_Scratch *s) noexcept:
    free(s.lows)
    free(s.pairs)
    s.lows = s.pairs = NULL
    s.grams = s.cap = 0


def align_core(const uint8_t[::1] page, const int64_t[:] page_grams, SeedIndex work,
               int max_gap, int max_shift, int min_passage, int max_repeats, int seed_stride):
    """Alignment of ``page`` (letter codes, uint8 (n,)) with a prepared work (SeedIndex).

    page_grams: the page's seed k-grams at every ``seed_stride``-th position (int64); the other
    parameters as ``fingerprint.verify.align``.
    Returns an Alignment, or None when nothing is shared.
    """
    cdef _Scratch scratch = _Scratch(NULL, NULL, NULL, NULL, NULL, NULL, 0, 0)
    try:
        return _align(page, page_grams, work, max_gap, max_shift, min_passage, max_repeats,
                      seed_stride, &scratch)
    finally:
        _free_scratch(&scratch)


def align_many(const uint8_t[::1] page, const int64_t[:] page_grams, list works, list least,
               int max_gap, int max_shift, int min_passage, int max_repeats, int seed_stride):
    """``align_core`` of ``page`` with each of several works -> [(i, found)] for the works
    ``works[i]`` (SeedIndex) whose alignment (an Alignment) covers at least ``least[i]``
    (>= 1) page letters, in order."""
    out = []
    cdef _Scratch scratch = _Scratch(NULL, NULL, NULL, NULL, NULL, NULL, 0, 0)
    try:
        for i in range(len(works)):
            found = _align(page, page_grams, <SeedIndex?>works[i], max_gap, max_shift,
                           min_passage, max_repeats, seed_stride, &scratch)
            if found is not None and (<Alignment>found).page_covered >= least[i]:
                out.append((i, found))
    finally:
        _free_scratch(&scratch)
    return out


cdef Py_ssize_t _find_seeds(const int64_t *entries, Py_ssize_t n_codes,
                            const int64_t[:] page_grams, int max_repeats, int64_t *lows,
                            int64_t *repeats) noexcept nogil:
    """Stage 1: for each page k-gram, its first seed in the work's sorted (code, position)
    ``entries`` (``lows``, -1: none, or more than ``max_repeats``) and how many there are
    (``repeats``). Returns the seeds in all."""
    cdef Py_ssize_t n_grams = page_grams.shape[0], t0, t, b, lanes, lo, hi, mid, c, cap = 0
    cdef const int64_t *at[LANES]
    cdef int64_t want[LANES]
    cdef int64_t g
    t0 = 0
    while t0 < n_grams:
        # the first code >= each k-gram (lower bound), searched without branches (a
        # conditional move), LANES k-grams in lockstep so that their memory loads overlap
        # (every search halves the same lengths: they depend on n_codes only)
        lanes = min(LANES, n_grams - t0)
        for b in range(lanes):
            at[b] = entries
            want[b] = page_grams[t0 + b]
        hi = n_codes
        while hi > 1:
            mid = hi >> 1
            for b in range(lanes):
                at[b] = at[b] + 2 * mid if at[b][2 * mid] < want[b] else at[b]
            hi -= mid
        for b in range(lanes):
            g = want[b]
            t = t0 + b
            lo = (at[b] - entries) // 2 + (at[b][0] < g)
            lows[t] = -1
            c = 0  # the group of equal codes at lo, counted up to one past max_repeats
            while lo + c < n_codes and entries[2 * (lo + c)] == g and c <= max_repeats:
                c += 1
            if 0 < c <= max_repeats:
                lows[t] = lo
                repeats[t] = c
                cap += c
        t0 += LANES
    return cap


cdef Py_ssize_t _seed_pairs(const int64_t *entries, const int64_t *lows, const int64_t *repeats,
                            Py_ssize_t n_grams, int seed_stride, Py_ssize_t n_page, int shift,
                            int64_t *pairs) noexcept nogil:
    """Stage 2: every seed as (diagonal, page position) packed in one int64, so that one sort
    orders them by diagonal, then position. Returns their number (sorted in ``pairs``)."""
    cdef Py_ssize_t t, c, n_pairs = 0
    cdef int64_t i, d, lo
    for t in range(n_grams):
        lo = lows[t]
        if lo < 0:
            continue
        i = t * seed_stride
        for c in range(repeats[t]):
            d = entries[2 * (lo + c) + 1] - i
            pairs[n_pairs] = ((d + n_page) << shift) | i
            n_pairs += 1
    _sort_i64(pairs, n_pairs, 2 * _log2(n_pairs))
    return n_pairs


cdef Py_ssize_t _runs(const int64_t *pairs, Py_ssize_t n_pairs, int shift,
                      const uint8_t *page, Py_ssize_t n_page, const uint8_t *work,
                      Py_ssize_t n_work, int k, int max_gap, int seed_stride,
                      int64_t *runs) noexcept nogil:
    """Stage 3: runs, the seeds of one diagonal at most ``max_gap`` apart, extended letter by
    letter (up to a stride), kept when at least 1.5 k-grams long: (start, end, diagonal,
    matched letters) each, sorted. Returns their number."""
    cdef int64_t low = (<int64_t>1 << shift) - 1, reach = seed_stride - 1, min_len = k + k // 2
    cdef int64_t d, s, e, x, cov
    cdef Py_ssize_t t, c, first = 0, last, n_runs = 0
    for t in range(1, n_pairs + 1):
        if t < n_pairs and pairs[t] >> shift == pairs[t - 1] >> shift \
                and (pairs[t] & low) - (pairs[t - 1] & low) <= max_gap:
            continue
        last = t - 1
        d = (pairs[first] >> shift) - n_page
        s = pairs[first] & low
        e = (pairs[last] & low) + k
        first = t
        for c in range(reach):
            x = s - 1
            if x < 0 or x + d < 0 or page[x] != work[x + d]:
                break
            s = x
        for c in range(reach):
            if e >= n_page or e + d >= n_work or page[e] != work[e + d]:
                break
            e += 1
        if e - s < min_len:
            continue
        cov = 0
        for x in range(s, e):
            cov += page[x] == work[x + d]
        runs[4 * n_runs] = s
        runs[4 * n_runs + 1] = e
        runs[4 * n_runs + 2] = d
        runs[4 * n_runs + 3] = cov
        n_runs += 1
    _sort_records(runs, n_runs, 4 * sizeof(int64_t), _cmp_run)
    return n_runs


cdef Py_ssize_t _chains(const int64_t *runs, Py_ssize_t n_runs, int max_gap, int max_shift,
                        Chain *chains, int64_t *run_next) noexcept nogil:
    """Stage 4: chains of runs, a run joining one of the ``MAX_LOOKBACK`` newest chains when
    it follows it on both sides within ``max_gap`` letters (insertions and deletions) or
    overlaps it by at most ``max_shift``. Returns their number."""
    cdef Py_ssize_t r, q, n_chains = 0
    cdef int64_t s, e, d, cov, ws, we
    cdef Chain *ch
    cdef bint ok
    for r in range(n_runs):
        s, e, d, cov = runs[4 * r], runs[4 * r + 1], runs[4 * r + 2], runs[4 * r + 3]
        ws, we = s + d, e + d
        run_next[r] = -1
        ok = False
        q = n_chains - 1
        while q >= 0 and q >= n_chains - MAX_LOOKBACK:
            ch = &chains[q]
            if -max_shift <= s - ch.pe <= max_gap and -max_shift <= ws - ch.we <= max_gap:
                # letters already matched on either side count once
                cov = max(0, min(cov, min(e - max(s, ch.pe), we - max(ws, ch.we))))
                ch.pe = max(ch.pe, e)
                ch.we = max(ch.we, we)
                ch.cov += cov
                run_next[ch.last_run] = r
                ch.last_run = r
                ch.n_runs += 1
                ok = True
                break
            q -= 1
        if not ok:
            ch = &chains[n_chains]
            ch.ps, ch.pe, ch.ws, ch.we, ch.cov = s, e, ws, we, cov
            ch.first_run, ch.last_run, ch.n_runs, ch.order = r, r, 1, n_chains
            n_chains += 1
    return n_chains


cdef Py_ssize_t _passages(Chain *chains, Py_ssize_t n_chains, int min_passage) noexcept nogil:
    """Stage 5: the passages, chains of at least ``min_passage`` matched letters, the longest
    first, none half inside a longer one; moved to the front of ``chains`` in page order.
    Returns their number."""
    cdef Py_ssize_t q, f, r = 0, n_kept = 0
    cdef bint ok
    for q in range(n_chains):
        if chains[q].cov >= min_passage:
            chains[n_kept] = chains[q]
            n_kept += 1
    _sort_records(chains, n_kept, sizeof(Chain), _cmp_chain_longest)
    for q in range(n_kept):
        ok = True
        for f in range(r):
            if 2 * (min(chains[q].pe, chains[f].pe) - max(chains[q].ps, chains[f].ps)) \
                    >= chains[q].pe - chains[q].ps:
                ok = False
                break
        if ok:
            chains[r] = chains[q]
            r += 1
    _sort_records(chains, r, sizeof(Chain), _cmp_chain_page)
    return r


cdef Alignment _alignment(const Chain *chains, Py_ssize_t n_kept, const int64_t *runs,
                          const int64_t *run_next, Py_ssize_t n_work, Py_ssize_t cap,
                          int64_t *pairs, int64_t *us):
    """Stage 6: the Alignment of the kept chains: passages, matched letters, their runs, and
    the letters covered on each side (``pairs`` and ``us``: scratch space of ``cap``
    and ``2 * cap``)."""
    cdef Py_ssize_t q, f = 0, n_runs = 0
    cdef int64_t r, cov = 0
    cdef const Chain *ch
    for q in range(n_kept):
        n_runs += chains[q].n_runs
    cdef Alignment found = Alignment.__new__(Alignment)
    found._allocate(n_kept, n_runs)
    for q in range(n_kept):
        ch = &chains[q]
        found._passages[4 * q] = ch.ps
        found._passages[4 * q + 1] = ch.pe
        found._passages[4 * q + 2] = ch.ws
        found._passages[4 * q + 3] = ch.we
        found._matched[q] = ch.cov
        cov += ch.cov
        r = ch.first_run
        while r >= 0:
            found._runs[3 * f] = runs[4 * r]
            found._runs[3 * f + 1] = runs[4 * r + 1]
            found._runs[3 * f + 2] = runs[4 * r + 2]
            f += 1
            r = run_next[r]
        us[q] = ch.ps
        us[cap + q] = ch.pe
    found.page_covered = min(cov, _union(us, us + cap, n_kept))
    # work spans sorted by start for the union
    for q in range(n_kept):
        pairs[q] = chains[q].ws * (n_work + 1) + chains[q].we
    _sort_i64(pairs, n_kept, 2 * _log2(n_kept))
    for q in range(n_kept):
        us[q] = pairs[q] // (n_work + 1)
        us[cap + q] = pairs[q] % (n_work + 1)
    found.work_covered = min(cov, _union(us, us + cap, n_kept))
    return found


cdef object _align(const uint8_t[::1] page, const int64_t[:] page_grams, SeedIndex seeds,
                   int max_gap, int max_shift, int min_passage, int max_repeats,
                   int seed_stride, _Scratch *s):
    """The stages above, in order, over the buffers of ``s``, grown to the seeds found."""
    cdef Py_ssize_t n_page = page.shape[0], n_grams = page_grams.shape[0], cap
    cdef Py_ssize_t n_pairs, n_runs, n_chains, n_kept
    cdef int shift = _log2(n_page) + 1  # bits of a page position: seeds pack (diagonal, i)
    if seeds._n_codes == 0 or n_grams == 0:
        return None
    # per page k-gram: its first seed's index (-1: none or too repeated), then the seed count
    _fit_scratch(s, n_grams, 0)
    cap = _find_seeds(seeds._seeds, seeds._n_codes, page_grams, max_repeats, s.lows,
                      s.lows + n_grams)
    if cap == 0:
        return None
    _fit_scratch(s, n_grams, cap)
    with nogil:
        n_pairs = _seed_pairs(seeds._seeds, s.lows, s.lows + n_grams, n_grams, seed_stride,
                              n_page, shift, s.pairs)
        n_runs = _runs(s.pairs, n_pairs, shift, &page[0], n_page, seeds._letters,
                       seeds._n_letters, seeds.k, max_gap, seed_stride, s.runs)
        n_chains = _chains(s.runs, n_runs, max_gap, max_shift, s.chains, s.run_next)
        n_kept = _passages(s.chains, n_chains, min_passage)
    if n_kept == 0:
        return None
    return _alignment(s.chains, n_kept, s.runs, s.run_next, seeds._n_letters, cap, s.pairs,
                      s.us)
