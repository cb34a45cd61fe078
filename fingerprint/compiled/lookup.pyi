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
                post: dict, df: dict, max_df: int, scratch: np.ndarray, ids: list, epoch: int, places: bool
                ) -> tuple[list[str], Revisions, np.ndarray, np.ndarray, np.ndarray | None]: ...
def rank(work: np.ndarray, window: np.ndarray, works: list[str], min_hits: int,
         max_candidates: int) -> list[tuple[int, int]]: ...
