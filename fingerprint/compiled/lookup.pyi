"""Types of the compiled lookup of a loaded MemoryIndex (lookup.pyx)."""

import numpy as np

def find_sorted(keys: np.ndarray, query: np.ndarray) -> np.ndarray: ...
def gather_postings(position: np.ndarray, bounds: np.ndarray, postings: np.ndarray,
                    window_bits: int, max_df: int
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...
