"""Types of the compiled grouping of postings (lookup.pyx)."""

import numpy as np

def group_postings(keys: list[int], which: np.ndarray, works: np.ndarray, windows: np.ndarray,
                   ids: list[str | None]) -> dict[int, list[tuple[str, int]]]: ...
