"""Types of the compiled text -> letters conversion (letters.pyx)."""

import numpy as np

def convert(text: str, classes: np.ndarray, boundary: int,
            latin: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...
