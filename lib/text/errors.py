"""The one exception of the text package."""

from __future__ import annotations


class TextError(ValueError):
    """Bytes that cannot become text, said with a stable code and parameters.

    The package has no user-facing wording (it imports no Django and no gettext): the Django side
    (``core.text_extraction``) turns ``(code, reason)`` and ``params`` into a message in the
    user's language; ``str()`` gives a plain English summary for logs.

    Attributes:
        code: what is wrong, one of "too_large", "empty", "unsupported", "mismatch", "corrupt",
            "encrypted", "archive_bomb", "encoding".
        reason: which case of the code, e.g. "too_many_entries" for "archive_bomb" (the
            message to show); see the raising function's docstring.
        params: the values the message needs (names, sizes in bytes, limits, the library's
            own error text).
    """

    def __init__(self, code: str, reason: str, **params: object) -> None:
        self.code = code
        self.reason = reason
        self.params = params
        detail = ", ".join(f"{key}={value}" for key, value in params.items())
        super().__init__(f"{code} ({reason})" + (f": {detail}" if detail else ""))
