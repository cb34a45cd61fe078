"""Types of the compiled alignment (align.pyx)."""

import numpy as np

def align_core(page: np.ndarray, page_grams: np.ndarray, work_codes: np.ndarray,
               work_positions: np.ndarray, work_repeats: np.ndarray, work: np.ndarray, k: int,
               max_gap: int, max_shift: int, min_passage: int, max_repeats: int,
               seed_stride: int
               ) -> tuple[list[tuple[int, int, int, int]], list[int], int, int,
                          list[tuple[int, int, int]]] | None: ...
def align_many(page: np.ndarray, page_grams: np.ndarray, works: list, least: list[int],
               max_gap: int, max_shift: int, min_passage: int, max_repeats: int,
               seed_stride: int
               ) -> list[tuple[int, tuple[list[tuple[int, int, int, int]], list[int], int, int,
                                         list[tuple[int, int, int]]]]]: ...
