"""Types of the compiled lookup of a MemoryIndex (lookup.pyx)."""

from collections.abc import Sequence

import numpy as np

def find_sorted(keys: np.ndarray, query: np.ndarray) -> np.ndarray: ...
def gather_postings(position: np.ndarray, bounds: np.ndarray, postings: np.ndarray,
                    window_bits: int, max_df: int
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...

class Revisions(Sequence[str]):
    def __len__(self) -> int: ...
    def __getitem__(self, i: int) -> str: ...  # type: ignore[override]

def name_works(numbers: np.ndarray, scratch: np.ndarray, ids: list, epoch: int
               ) -> tuple[list[str], Revisions, np.ndarray]: ...
def gather_held(keys: np.ndarray, presence: np.ndarray | None, presence_shift: int,
                post: dict, df: dict, max_df: int, scratch: np.ndarray, ids: list, epoch: int
                ) -> tuple[list[str], Revisions, np.ndarray, np.ndarray, np.ndarray]: ...
def rank(work: np.ndarray, window: np.ndarray, works: list[str], min_hits: int,
         max_candidates: int) -> list[tuple[int, int]]: ...
def template_siblings(work: np.ndarray, place: np.ndarray, n_works: int, n_places: int,
                      ranked: list[tuple[int, int]], min_own_keys: int, same_text_least: float) -> list[int]: ...
