"""A hostile .docx within the upload limits: a few MB whose document.xml expands to about
100 MB of small paragraphs. Wall time and peak memory (max RSS of a fresh child process) of
reading it the former way (python-docx builds the whole tree, then its paragraphs are read) and
the current way (lib.text.extract_file: the body read as a stream, stopped once its text
passes TextConfig.text_max_chars).

    .venv/bin/python -m bench.docx_extract [--mb 100]
"""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
import time
import zipfile

CHILD = """
import io, json, resource, sys, time
data = open(sys.argv[2], "rb").read()
start = time.perf_counter()
outcome = "read"
if sys.argv[1] == "python-docx":
    import docx
    chars = sum(len(p.text) for p in docx.Document(io.BytesIO(data)).paragraphs)
else:
    from lib.text import TextError, extract_file
    try:
        chars = len(extract_file("hostile.docx", data).text)
    except TextError as exc:
        chars, outcome = -1, f"refused: {exc.code}/{exc.reason}"
print(json.dumps({"way": sys.argv[1], "seconds": round(time.perf_counter() - start, 1),
                  "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
                  "chars": chars, "outcome": outcome}))
"""


def hostile_docx(megabytes: int) -> bytes:
    """A python-docx document whose body is replaced by ``megabytes`` MB of paragraphs of 4
    CJK characters each, drawn at random (seed 0) so that it compresses as text does (a
    repeated paragraph would compress past the archive ratio limit and be refused for that)."""
    import random

    import docx

    buffer = io.BytesIO()
    docx.Document().save(buffer)
    source = zipfile.ZipFile(buffer)
    head = source.read("word/document.xml").decode().split("<w:body>")[0]
    draw = random.Random(0)
    paragraph = "<w:p><w:r><w:t>{}</w:t></w:r></w:p>"
    count = megabytes * 2**20 // len(paragraph.format("字" * 4).encode())
    body = head + "<w:body>" + "".join(
        paragraph.format("".join(chr(draw.randrange(0x4E00, 0x9FA5)) for _ in range(4)))
        for _ in range(count)) + "</w:body></w:document>"
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as copy:
        for info in source.infolist():
            copy.writestr(info.filename, body if info.filename == "word/document.xml"
                          else source.read(info.filename))
    return out.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100, help="document.xml size, MB")
    args = parser.parse_args()
    path = "/tmp/bench-hostile.docx"
    data = hostile_docx(args.mb)
    with open(path, "wb") as out:
        out.write(data)
    print(f"file {len(data) / 2**20:.1f} MB, document.xml {args.mb} MB", flush=True)
    for way in ("python-docx", "streamed"):
        started = time.perf_counter()
        result = subprocess.run([sys.executable, "-c", CHILD, way, path], capture_output=True,
                                text=True, timeout=1800)
        print(result.stdout.strip() or result.stderr[-2000:],
              f"(child {time.perf_counter() - started:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
