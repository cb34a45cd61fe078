# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Seed-and-extend alignment of a page's letters with one work, compiled (see
``fingerprint.verify`` for the method and its parameters)."""

from libc.stdint cimport int64_t, uint8_t
from libc.stdlib cimport free, malloc, qsort

cdef int MAX_LOOKBACK = 8  # chains a run may join, newest first
cdef enum:
    LANES = 8  # binary searches of the seed step run side by side


cdef int _cmp_i64(const void *a, const void *b) noexcept nogil:
    cdef int64_t x = (<int64_t *>a)[0], y = (<int64_t *>b)[0]
    return (x > y) - (x < y)


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


def align_core(const uint8_t[::1] page, const int64_t[:] page_grams,
               const int64_t[::1] work_codes, const int64_t[::1] work_positions,
               const int64_t[::1] work_repeats, const uint8_t[::1] work, int k,
               int max_gap, int max_shift, int min_passage, int max_repeats, int seed_stride):
    """Alignment of ``page`` (letter codes, uint8 (n,)) with a prepared work.

    page_grams: the page's seed k-grams at every ``seed_stride``-th position (int64);
    work_codes, work_positions, work_repeats, work: the work's ``SeedIndex`` arrays (sorted
    k-gram codes, their positions, group sizes, letter codes); the other parameters as
    ``fingerprint.verify.align``.
    Returns (passages, matched, page_covered, work_covered, runs) as ``Alignment`` holds them,
    or None when nothing is shared.
    """
    return _align(page, page_grams, work_codes, work_positions, work_repeats, work, k, max_gap,
                  max_shift, min_passage, max_repeats, seed_stride)


def align_many(const uint8_t[::1] page, const int64_t[:] page_grams, list works, list least,
               int max_gap, int max_shift, int min_passage, int max_repeats, int seed_stride):
    """``align_core`` of ``page`` with each of several works -> [(i, found)] for the works
    ``works[i]`` (``fingerprint.verify.SeedIndex``) whose alignment covers at
    least ``least[i]`` (>= 1) page letters (``found``: ``align_core``'s tuple), in order."""
    out = []
    for i in range(len(works)):
        seeds = works[i]
        found = _align(page, page_grams, seeds.codes, seeds.positions, seeds.repeats,
                       seeds.letters, seeds.k, max_gap, max_shift, min_passage, max_repeats,
                       seed_stride)
        if found is not None and found[2] >= least[i]:
            out.append((i, found))
    return out


cdef object _align(const uint8_t[::1] page, const int64_t[:] page_grams,
                   const int64_t[::1] work_codes, const int64_t[::1] work_positions,
                   const int64_t[::1] work_repeats, const uint8_t[::1] work, int k,
                   int max_gap, int max_shift, int min_passage, int max_repeats,
                   int seed_stride):
    cdef Py_ssize_t n_page = page.shape[0], n_work = work.shape[0]
    cdef Py_ssize_t n_codes = work_codes.shape[0], n_grams = page_grams.shape[0]
    cdef Py_ssize_t t, lo, hi, mid, c, n_pairs = 0, cap
    cdef int64_t g, i, d, s, e, reach = seed_stride - 1, min_len = k + k // 2, x, cov
    cdef int64_t span = n_page + 1, ws, we
    if n_codes == 0 or n_grams == 0:
        return None
    # 1. seeds: (diagonal, page position) packed in one int64 so one sort orders them
    cap = 0
    cdef int64_t *lows = <int64_t *>malloc(n_grams * sizeof(int64_t))
    if lows == NULL:
        raise MemoryError()
    cdef const int64_t *codes = &work_codes[0]
    cdef const int64_t *at[LANES]
    cdef int64_t want[LANES]
    cdef Py_ssize_t t0, b, lanes
    for t0 in range(0, n_grams, LANES):
        # the first code >= each k-gram (lower bound), searched without branches (a
        # conditional move), LANES k-grams in lockstep so that their memory loads overlap
        # (every search halves the same lengths: they depend on n_codes only)
        lanes = min(LANES, n_grams - t0)
        for b in range(lanes):
            at[b] = codes
            want[b] = page_grams[t0 + b]
        hi = n_codes
        while hi > 1:
            mid = hi >> 1
            for b in range(lanes):
                at[b] = at[b] + mid if at[b][mid] < want[b] else at[b]
            hi -= mid
        for b in range(lanes):
            g = want[b]
            t = t0 + b
            lo = (at[b] - codes) + (at[b][0] < g)
            if lo < n_codes and work_codes[lo] == g and work_repeats[lo] <= max_repeats:
                lows[t] = lo
                cap += work_repeats[lo]
            else:
                lows[t] = -1
    if cap == 0:
        free(lows)
        return None
    cdef int64_t *pairs = <int64_t *>malloc(cap * sizeof(int64_t))
    cdef int64_t *runs = <int64_t *>malloc(4 * cap * sizeof(int64_t))
    cdef Chain *chains = <Chain *>malloc(cap * sizeof(Chain))
    cdef int64_t *run_next = <int64_t *>malloc(cap * sizeof(int64_t))
    cdef int64_t *us = <int64_t *>malloc(2 * cap * sizeof(int64_t))
    if pairs == NULL or runs == NULL or chains == NULL or run_next == NULL or us == NULL:
        free(lows); free(pairs); free(runs); free(chains); free(run_next); free(us)
        raise MemoryError()
    cdef Py_ssize_t n_runs = 0, n_chains = 0, n_kept = 0, r, q, f, first, last
    cdef Chain *ch
    cdef bint ok
    try:
        with nogil:
            for t in range(n_grams):
                lo = lows[t]
                if lo < 0:
                    continue
                i = t * seed_stride
                for c in range(work_repeats[lo]):
                    d = work_positions[lo + c] - i
                    pairs[n_pairs] = (d + n_page) * span + i
                    n_pairs += 1
            qsort(pairs, n_pairs, sizeof(int64_t), _cmp_i64)
            # 2. runs: seeds of one diagonal at most max_gap apart, extended letter by letter
            first = 0
            for t in range(1, n_pairs + 1):
                if t < n_pairs and pairs[t] // span == pairs[t - 1] // span \
                        and pairs[t] % span - pairs[t - 1] % span <= max_gap:
                    continue
                last = t - 1
                d = pairs[first] // span - n_page
                s = pairs[first] % span
                e = pairs[last] % span + k
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
            qsort(runs, n_runs, 4 * sizeof(int64_t), _cmp_run)
            # 3. chains of runs (insertions and deletions up to max_gap letters)
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
            # 4. passages: long enough chains, the longest first, none half inside another
            for q in range(n_chains):
                if chains[q].cov >= min_passage:
                    chains[n_kept] = chains[q]
                    n_kept += 1
            qsort(chains, n_kept, sizeof(Chain), _cmp_chain_longest)
            r = 0
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
            n_kept = r
            qsort(chains, n_kept, sizeof(Chain), _cmp_chain_page)
        if n_kept == 0:
            return None
        passages, matched, run_list = [], [], []
        cov = 0
        for q in range(n_kept):
            ch = &chains[q]
            passages.append((ch.ps, ch.pe, ch.ws, ch.we))
            matched.append(ch.cov)
            cov += ch.cov
            r = ch.first_run
            while r >= 0:
                run_list.append((runs[4 * r], runs[4 * r + 1], runs[4 * r + 2]))
                r = run_next[r]
            us[q] = ch.ps
            us[cap + q] = ch.pe
        page_cov = min(cov, _union(us, us + cap, n_kept))
        # work spans sorted by start for the union
        for q in range(n_kept):
            pairs[q] = chains[q].ws * (n_work + 1) + chains[q].we
        qsort(pairs, n_kept, sizeof(int64_t), _cmp_i64)
        for q in range(n_kept):
            us[q] = pairs[q] // (n_work + 1)
            us[cap + q] = pairs[q] % (n_work + 1)
        work_cov = min(cov, _union(us, us + cap, n_kept))
        return passages, matched, page_cov, work_cov, run_list
    finally:
        free(lows); free(pairs); free(runs); free(chains); free(run_next); free(us)
