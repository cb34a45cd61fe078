"""Directory persistence shared by MemoryIndex and MemoryWorkStore: atomic file writes and a
``manifest.json`` naming the format, written last and checked first."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def write_atomic(target: Path, write: Callable[[BinaryIO], object]) -> None:
    """Write ``target`` through ``write(fileobj)`` under a temporary name, then rename it
    (``os.replace``), so readers see the old file or the new one, never half of one."""
    tmp = target.with_name(target.name + ".tmp")
    with open(tmp, "wb") as f:
        write(f)
    os.replace(tmp, target)


def write_manifest(directory: Path, fmt: str, version: int, **fields) -> None:
    """Write ``directory/manifest.json`` = {"format", "format_version", **fields} atomically."""
    manifest = {"format": fmt, "format_version": version, **fields}
    write_atomic(directory / "manifest.json",
                 lambda f: f.write(json.dumps(manifest, indent=1, ensure_ascii=False).encode()))


def read_manifest(directory: Path, fmt: str, version: int, what: str) -> dict:
    """Read and check ``directory/manifest.json``.

    Args:
        directory: the saved folder. fmt, version: the expected format name and version.
        what: words for error messages ("fingerprint index", "work store").

    Returns:
        dict: the manifest.

    Raises:
        FileNotFoundError: no manifest (nothing saved there).
        ValueError: the manifest is of another format or version, or is not JSON.
    """
    path = directory / "manifest.json"
    if not path.is_file():
        raise FileNotFoundError(f"no {what} in {directory} (missing manifest.json)")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ValueError(f"{path}: not JSON ({exc})") from exc
    if manifest.get("format") != fmt or manifest.get("format_version") != version:
        raise ValueError(f"{path}: not a {fmt} v{version} manifest")
    return manifest
