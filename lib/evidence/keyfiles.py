"""Private key files: written so that only their owner can ever read them."""

from __future__ import annotations

import os
from pathlib import Path


def write_private_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` (replacing it) with mode 0600 from creation on, so that the
    key is never readable by others, even for a moment. Raises OSError."""
    path.unlink(missing_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as file:
        file.write(data)
