"""Types of the compiled rewrite stage: sentences, rewrite keys, unit pairs (rewrite.pyx)."""

from collections.abc import Callable

import numpy as np

NO_TOKEN: int
SENTENCE_END: int
FULL_STOP: int

class WordCodes:
    def __init__(self, make: Callable[[str], int], capacity: int = ...) -> None: ...
    def __len__(self) -> int: ...
    def clear(self) -> None: ...
    def code(self, word: str) -> int: ...

def cut_sentences(words: list[str], seen: WordCodes, entries: dict[str, str]
                  ) -> tuple[list[int], list[int], np.ndarray, list[int], np.ndarray, list[int],
                             np.ndarray, list[int], np.ndarray, list[int]]: ...
def window_keys(codes: np.ndarray, sizes: list[int], min_tokens: int,
                key_tokens: int) -> list[int]: ...
def page_keys(words: list[str], seen: WordCodes, min_tokens: int, key_tokens: int,
              max_sentences: int) -> tuple[np.ndarray, int]: ...
def key_evidence(places: np.ndarray, work: np.ndarray, n_keys: int, n_works: int,
                 template_works: int) -> tuple[list[int], list[int], int]: ...
def unit_pairs(work_tokens: np.ndarray, work_token_sizes: list[int], work_chars: np.ndarray,
               work_char_sizes: list[int], work_numbers: np.ndarray,
               work_number_sizes: list[int], page_tokens: np.ndarray,
               page_token_sizes: list[int], page_chars: np.ndarray, page_char_sizes: list[int],
               page_numbers: np.ndarray, page_number_sizes: list[int], limit: int,
               min_shared: int, max_unit_ratio: float, pair_score: float
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]: ...
