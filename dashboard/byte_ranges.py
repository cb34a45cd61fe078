"""A stored file answered with HTTP range requests (RFC 9110 §14): ReplayWeb.page reads an
evidence bundle (a ZIP) by byte ranges, its index first, instead of downloading it whole.

One range per request is served (``bytes=a-b``, ``bytes=a-``, ``bytes=-n``); a request with
several ranges, or a Range header this does not read, gets the whole file (a server may ignore
Range, §14.2). Every answer says ``Accept-Ranges: bytes`` and its length.
"""

from __future__ import annotations

import re
from typing import Literal

from django.http import FileResponse, HttpResponse, StreamingHttpResponse

_ONE_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


def requested_range(header: str, size: int) -> tuple[int, int] | None | Literal[False]:
    """The byte range a Range ``header`` asks of a file of ``size`` bytes.

    Returns:
        ``(first, last)`` byte positions (inclusive) within the file; None when the whole file
        is to be sent (no header, several ranges, a header not read); False when the range
        cannot be satisfied (it starts at or past the end, or asks for zero bytes).
    """
    found = _ONE_RANGE.match(header.strip()) if header else None
    if not found or found.group(1) == found.group(2) == "":
        return None
    first, last = found.group(1), found.group(2)
    if first == "":  # the last N bytes
        length = int(last)
        return (max(0, size - length), size - 1) if length and size else False
    start = int(first)
    if start >= size:
        return False
    end = min(int(last), size - 1) if last else size - 1
    return (start, end) if end >= start else None


class _Slice:
    """``length`` bytes of ``handle`` from ``start``, iterated in FileResponse's block size;
    Django calls ``close`` once the answer is sent or abandoned (a HEAD reads none of it)."""

    def __init__(self, handle, start: int, length: int):
        self.handle, self.start, self.length = handle, start, length

    def __iter__(self):
        self.handle.seek(self.start)
        left = self.length
        while left > 0:
            block = self.handle.read(min(FileResponse.block_size, left))
            if not block:
                return
            left -= len(block)
            yield block

    def close(self) -> None:
        self.handle.close()


def ranged_file_response(request, handle, size: int, *, content_type: str,
                         filename: str) -> HttpResponse:
    """Answer ``request`` with the file ``handle`` (opened for reading in binary, ``size``
    bytes): 206 with its one requested range, 416 for a range past its end, else 200 with all
    of it; an attachment named ``filename``. The handle is closed once the answer is sent."""
    wanted = requested_range(request.headers.get("Range", ""), size)
    disposition = f'attachment; filename="{filename}"'
    if wanted is False:
        handle.close()
        response = HttpResponse(status=416)
        response["Content-Range"] = f"bytes */{size}"
    elif wanted is None:
        response = FileResponse(handle, content_type=content_type)
        response["Content-Length"] = str(size)
    else:
        first, last = wanted
        response = StreamingHttpResponse(_Slice(handle, first, last - first + 1), status=206,
                                         content_type=content_type)
        response["Content-Range"] = f"bytes {first}-{last}/{size}"
        response["Content-Length"] = str(last - first + 1)
    response["Accept-Ranges"] = "bytes"
    response["Content-Disposition"] = disposition
    return response
