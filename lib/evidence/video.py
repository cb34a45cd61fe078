"""The screen recording of a witnessed visit: Chromium's screencast frames (JPEG, as the page
changed) made into an H.264 MP4 video at a constant frame rate, each frame under a header band
that shows the page's address and the capture clock (UTC, to the millisecond) of that frame, as
web-evidence practice (取证录屏) expects.

The frames are drawn with Pillow and encoded by the ffmpeg that the ``imageio-ffmpeg`` package
ships (no system ffmpeg needed).
"""

from __future__ import annotations

import io
import os
import tempfile
from datetime import UTC, datetime

import imageio_ffmpeg
from PIL import Image, ImageDraw, ImageFont

BAND = 36  # pixels of the header band above the page


def screen_recording(frames: list[tuple[float, bytes]], url: str, *, width: int, height: int,
                     fps: int, tail_seconds: float) -> bytes:
    """An MP4 (bytes) of ``frames`` ((UTC epoch seconds, JPEG bytes), in order), each shown
    from its time until the next one's (the last for ``tail_seconds``), scaled into
    ``width`` x ``height`` pixels of page under a band with ``url`` and the frame's time, at
    ``fps`` frames a second. Raises ValueError for no frames; OSError when ffmpeg fails."""
    if not frames:
        raise ValueError("no frames to record")
    size = (width, height + BAND)
    font = ImageFont.load_default(size=16)
    fd, path = tempfile.mkstemp(suffix=".mp4")
    os.close(fd)
    try:
        writer = imageio_ffmpeg.write_frames(path, size, fps=fps, codec="libx264",
                                             pix_fmt_out="yuv420p", macro_block_size=8,
                                             output_params=["-movflags", "+faststart"])
        writer.send(None)
        start = frames[0][0]
        ends = [t for t, _ in frames[1:]] + [frames[-1][0] + tail_seconds]
        shown = 0
        for (at, jpeg), until in zip(frames, ends, strict=True):
            picture = _framed(jpeg, url, at, size, font).tobytes()
            while shown / fps < until - start or shown == 0:
                writer.send(picture)
                shown += 1
        writer.close()
        with open(path, "rb") as out:
            return out.read()
    finally:
        os.unlink(path)


def _framed(jpeg: bytes, url: str, at: float, size: tuple[int, int], font) -> Image.Image:
    canvas = Image.new("RGB", size, "white")
    page = Image.open(io.BytesIO(jpeg)).convert("RGB")
    page.thumbnail((size[0], size[1] - BAND))
    canvas.paste(page, (0, BAND))
    draw = ImageDraw.Draw(canvas)
    draw.rectangle((0, 0, size[0], BAND - 1), fill="#202124")
    clock = datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + " UTC"
    draw.text((10, 9), clock, fill="#ffd700", font=font)
    draw.text((250, 9), url[:120], fill="#ffffff", font=font)
    return canvas
