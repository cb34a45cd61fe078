"""Types of the compiled sentences and rewrite keys (sentences.pyx)."""

from collections.abc import Mapping

import numpy as np

NO_TOKEN: int
SENTENCE_END: int
FULL_STOP: int

def cut_sentences(words: list[str], seen: Mapping[str, int], entries: dict[str, str]
                  ) -> tuple[list[int], list[int], np.ndarray, list[int], np.ndarray, list[int],
                             np.ndarray, list[int]]: ...
def window_keys(codes: np.ndarray, sizes: list[int], min_tokens: int,
                key_tokens: int) -> list[int]: ...
