"""The one error of text extraction."""

from __future__ import annotations


class UploadError(ValueError):
    """An upload that cannot become a work; the message is meant for the user.

    Attributes:
        code: one of "too_large", "empty", "unsupported", "mismatch", "corrupt", "encrypted",
            "archive_bomb", "encoding".
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(str(message))
        self.code = code
