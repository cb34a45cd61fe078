"""Types of the compiled alignment (align.pyx)."""

import numpy as np

def sort_int64(values: np.ndarray, depth: int = -1) -> None: ...

class SeedIndex:
    seeds: np.ndarray
    letters: np.ndarray
    k: int
    def __init__(self, seeds: np.ndarray, letters: np.ndarray, k: int) -> None: ...
    @property
    def codes(self) -> np.ndarray: ...
    @property
    def positions(self) -> np.ndarray: ...
    @property
    def n_letters(self) -> int: ...
    @staticmethod
    def build(codes: np.ndarray, k: int) -> SeedIndex: ...

class Alignment:
    n_passages: int
    n_runs: int
    page_covered: int
    work_covered: int
    def __init__(self, passages: list[tuple[int, int, int, int]] = ..., matched: list[int] = ...,
                 page_covered: int = 0, work_covered: int = 0,
                 runs: list[tuple[int, int, int]] = ...) -> None: ...
    @property
    def passages(self) -> list[tuple[int, int, int, int]]: ...
    @property
    def matched(self) -> list[int]: ...
    @property
    def runs(self) -> list[tuple[int, int, int]]: ...

def align_core(page: np.ndarray, page_grams: np.ndarray, work: SeedIndex, max_gap: int,
               max_shift: int, min_passage: int, max_repeats: int, seed_stride: int
               ) -> Alignment | None: ...
def align_many(page: np.ndarray, page_grams: np.ndarray, works: list[SeedIndex],
               least: list[int], max_gap: int, max_shift: int, min_passage: int,
               max_repeats: int, seed_stride: int) -> list[tuple[int, Alignment]]: ...
