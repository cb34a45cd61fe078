"""`python -m fingerprint index|query` run as a real subprocess on committed fixtures
(tests/fingerprint/fixtures/cli, sources in SOURCES.md), with --db and with the real Redis and
MongoDB of the test session; bad input, missing servers and exit codes."""

from __future__ import annotations

import gzip
import json
import random
import re
import select
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lib.runtime.embedded import free_port
from tests.fingerprint.test_rewrite import rewrite

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures" / "cli"
WORKS = FIXTURES / "works.jsonl"
PAGES = FIXTURES / "pages.jsonl"
EXPECTED = {("page-excerpt", "henhai-02"), ("page-reprint", "bameitu-02"),
            ("page-newyear-shuffled", "pd-newyear")}
KEYS = ["page_id", "work_id", "score", "containment_page", "containment_work", "passages",
        "same_text", "kind"]


def run(*args, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m fingerprint ARGS`` from the repository root; text output."""
    proc = subprocess.run([sys.executable, "-m", "fingerprint", *map(str, args)], cwd=ROOT,
                          input=stdin, capture_output=True, timeout=300)
    proc.stdout, proc.stderr = proc.stdout.decode(), proc.stderr.decode()
    return proc


def records(path: Path) -> dict[str, dict]:
    return {r["id"]: r for r in map(json.loads, path.read_text(encoding="utf-8").splitlines())}


def matches(proc) -> list[dict]:
    return [json.loads(line) for line in proc.stdout.splitlines()]


def write_lines(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def work_line(work_id: str, text: str) -> bytes:
    return json.dumps({"id": work_id, "text": text}, ensure_ascii=False).encode()


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    """A --db directory with the fixture works indexed (shared, read-only for queries)."""
    path = tmp_path_factory.mktemp("cli") / "db"
    proc = run("index", "--db", path, WORKS)
    assert proc.returncode == 0, proc.stderr
    return path


def check_matches(found: list[dict]) -> None:
    """The fixture pages' expected matches, with passages on the copied text."""
    assert {(m["page_id"], m["work_id"]) for m in found} == EXPECTED
    works, pages = records(WORKS), records(PAGES)
    for m in found:
        assert list(m) == KEYS
        assert 0 < m["score"] <= 1 and m["passages"]
        assert all(list(p) == ["page_start", "page_end", "work_start", "work_end"]
                   for p in m["passages"])
    excerpt = next(m for m in found if m["page_id"] == "page-excerpt")
    page = pages["page-excerpt"]
    (p,) = excerpt["passages"]
    # the passage is the 300 copied characters (a few characters of slack at the edges)
    assert abs(p["page_start"] - page["excerpt_page_start"]) <= 5
    assert abs(p["work_start"] - page["excerpt_work_start"]) <= 5
    assert abs((p["page_end"] - p["page_start"]) - 300) <= 10
    copied = page["text"][p["page_start"]:p["page_end"]]
    assert copied == works["henhai-02"]["text"][p["work_start"]:p["work_end"]]
    reprint = next(m for m in found if m["page_id"] == "page-reprint")
    assert reprint["containment_work"] > 0.95
    for p in reprint["passages"]:
        assert pages["page-reprint"]["text"][p["page_start"]:p["page_end"]] == \
            works["bameitu-02"]["text"][p["work_start"]:p["work_end"]]


def test_index_and_query_with_db(db):
    proc = run("query", "--db", db, PAGES)
    assert proc.returncode == 0, proc.stderr
    check_matches(matches(proc))
    assert re.search(r"queried 5 pages, 3 with matches, 3 matches, skipped 0, [\d.]+ s",
                     proc.stderr)


def test_index_summary_and_replacement(tmp_path):
    first = run("index", "--db", tmp_path / "db", WORKS)
    assert first.returncode == 0, first.stderr
    summary = re.fullmatch(r"indexed 4 works \(0 replaced\), skipped 0, (\d+) windows, [\d.]+ s\n",
                           first.stdout)
    assert summary and int(summary[1]) > 100
    again = run("index", "--db", tmp_path / "db", WORKS)
    assert again.stdout.startswith(f"indexed 4 works (4 replaced), skipped 0, {summary[1]} windows")
    changed = write_lines(tmp_path / "one.jsonl", [work_line("henhai-02", records(PAGES)[
        "page-news"]["text"])])
    assert run("index", "--db", tmp_path / "db", changed).returncode == 0
    found = matches(run("query", "--db", tmp_path / "db", PAGES))
    # henhai-02 now holds the news text: the excerpt page no longer matches it, the news page does
    assert {(m["page_id"], m["work_id"]) for m in found} == \
        EXPECTED - {("page-excerpt", "henhai-02")} | {("page-news", "henhai-02")}


def test_gzip_detected_by_magic_bytes_and_stdin(db, tmp_path):
    packed = tmp_path / "pages.data"  # no .gz suffix
    packed.write_bytes(gzip.compress(PAGES.read_bytes()))
    proc = run("query", "--db", db, packed)
    assert proc.returncode == 0, proc.stderr
    check_matches(matches(proc))
    from_stdin = run("query", "--db", db, "-", stdin=PAGES.read_bytes() + b"oops\n")
    assert {(m["page_id"], m["work_id"]) for m in matches(from_stdin)} == EXPECTED
    assert "<stdin>:6: malformed JSON" in from_stdin.stderr


def test_bad_lines_are_reported_and_skipped(tmp_path):
    text = records(WORKS)["bameitu-02"]["text"]
    bad = write_lines(tmp_path / "bad.jsonl", [
        work_line("ok-1", text[:2000]),                      # line 1
        b'{"id": "broken", "text": "unterminated',           # line 2
        json.dumps({"text": text[:500]}).encode(),            # line 3: no id
        work_line("empty", "   "),                           # line 4
        work_line("latin1", "x").replace(b"x", b"\xe9t\xe9"),  # line 5: not UTF-8
        b"[1, 2]",                                           # line 6
        b"",                                                 # blank: ignored
        work_line("digits", "1234 5678 !!!"),                # line 8: no letters
        json.dumps({"id": "no-text", "body": "x"}).encode(),  # line 9
        b'{"id": "\\ud800", "text": "lone surrogate"}',       # line 10
        work_line("ok-2", text[2000:]),                      # line 11
    ])
    proc = run("index", "--db", tmp_path / "db", bad)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("indexed 2 works (0 replaced), skipped 8 (")
    for line, reason in [(2, "malformed JSON"), (3, "missing id"), (4, "empty text"),
                         (5, "not UTF-8"), (6, "not a JSON object"), (8, "rejected text"),
                         (9, "missing text"), (10, "bad id")]:
        assert f"bad.jsonl:{line}: {reason}" in proc.stderr
    assert "Traceback" not in proc.stderr
    page = write_lines(tmp_path / "page.jsonl", [b"not json", work_line("p", text[:3000])])
    queried = run("query", "--db", tmp_path / "db", page)
    assert queried.returncode == 0
    assert {m["work_id"] for m in matches(queried)} == {"ok-1", "ok-2"}
    assert "page.jsonl:1: malformed JSON" in queried.stderr


def test_lines_that_only_the_lenient_json_reader_accepts_are_kept(tmp_path):
    """Lines are read by orjson, and by the json module where orjson refuses them: a BOM on
    the first line, NaN and an integer past 64 bits are read as before. A lone surrogate
    escape is read too: a page holding one is matched, a work holding one is refused alone
    (no store can encode it) and the other works of the file are indexed."""
    text = records(WORKS)["bameitu-02"]["text"]
    q = len(text) // 4
    lenient = write_lines(tmp_path / "lenient.jsonl", [
        b"\xef\xbb\xbf" + work_line("bom", text[:q]),
        work_line("nan", text[q:2 * q])[:-1] + b', "weight": NaN}',
        work_line("big", text[2 * q:3 * q])[:-1] + b', "serial": 123456789012345678901234567890}',
        work_line("surrogate", text[3 * q:])[:-2] + b'\\ud800"}',
    ])
    proc = run("index", "--db", tmp_path / "db", lenient)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("indexed 3 works (0 replaced), skipped 1 (1 rejected text),")
    assert "lenient.jsonl:4: rejected text: record 'surrogate': work 'surrogate': text has a " \
           f"lone surrogate (U+D800) at character {len(text) - 3 * q}" in proc.stderr
    page = write_lines(tmp_path / "page.jsonl", [
        work_line("page", text[2 * q:3 * q])[:-2] + b'\\ud800"}',
        work_line("page-2", text[q:2 * q])])
    queried = run("query", "--db", tmp_path / "db", page)
    assert queried.returncode == 0, queried.stderr
    assert {(m["page_id"], m["work_id"]) for m in matches(queried)} == {("page", "big"),
                                                                        ("page-2", "nan")}


def test_a_text_registered_as_several_works_is_one_finding(tmp_path):
    text = records(WORKS)["bameitu-02"]["text"]
    again = write_lines(tmp_path / "again.jsonl", [work_line("bameitu-reissue", text),
                                                   work_line("bameitu-holder-2", text)])
    assert run("index", "--db", tmp_path / "db", WORKS).returncode == 0
    assert run("index", "--db", tmp_path / "db", again).returncode == 0
    proc = run("query", "--db", tmp_path / "db", PAGES)
    assert proc.returncode == 0, proc.stderr
    group = ["bameitu-02", "bameitu-holder-2", "bameitu-reissue"]
    reprint = [m for m in matches(proc) if m["page_id"] == "page-reprint"]
    assert sorted(m["work_id"] for m in reprint) == group
    assert all(m["same_text"] == group and m["containment_work"] > 0.95 for m in reprint)
    assert (f"page 'page-reprint': the same text is registered as 3 works: "
            f"{', '.join(group)}") in proc.stderr
    others = [m for m in matches(proc) if m["page_id"] != "page-reprint"]
    assert all(m["same_text"] == [m["work_id"]] for m in others) and len(others) == 2


def test_nothing_processed_exits_1(tmp_path):
    gbk = tmp_path / "gbk.jsonl"  # undecodable: GBK, not UTF-8
    gbk.write_bytes(WORKS.read_text(encoding="utf-8").encode("gbk", errors="replace"))
    proc = run("index", "--db", tmp_path / "db", gbk)
    assert proc.returncode == 1
    assert "gbk.jsonl:1: not UTF-8" in proc.stderr and "gbk.jsonl:4: not UTF-8" in proc.stderr
    assert proc.stdout.startswith("indexed 0 works")
    missing = run("index", "--db", tmp_path / "db", tmp_path / "nope.jsonl")
    assert missing.returncode == 1 and "nope.jsonl: no such file" in missing.stderr
    empty = run("index", "--db", tmp_path / "db", write_lines(tmp_path / "e.jsonl", []))
    assert empty.returncode == 1 and "no records" in empty.stderr
    no_db = run("query", "--db", tmp_path / "absent", PAGES)
    assert no_db.returncode == 1 and "no fingerprint index" in no_db.stderr


def test_truncated_gzip_keeps_what_was_read(tmp_path):
    lines = WORKS.read_bytes().splitlines(keepends=True)
    packed = gzip.compress(b"".join(lines))
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(packed[: len(packed) * 3 // 4])
    proc = run("index", "--db", tmp_path / "db", cut)
    assert proc.returncode == 0, proc.stderr
    assert "corrupt input" in proc.stderr and "the rest of the file is unread" in proc.stderr
    assert re.match(r"indexed [1-3] works", proc.stdout)


def test_usage_errors_exit_2(tmp_path):
    assert run("index", "--redis", "redis://127.0.0.1:1/0", WORKS).returncode == 2
    assert run("index", "--db", tmp_path, "--mongo", "mongodb://x", WORKS).returncode == 2
    assert run("query", PAGES).returncode == 2


def test_version_change_rebuilds_db_index(tmp_path):
    assert run("index", "--db", tmp_path / "db", WORKS).returncode == 0
    manifest_path = tmp_path / "db" / "index" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["fingerprint_version"] = "older-scheme"
    manifest_path.write_text(json.dumps(manifest))
    proc = run("query", "--db", tmp_path / "db", PAGES)
    assert proc.returncode == 0 and "rebuilding it from 4 stored works" in proc.stderr
    check_matches(matches(proc))


def test_progress_bar_on_long_input(tmp_path):
    text = records(WORKS)["henhai-02"]["text"]
    big = write_lines(tmp_path / "big.jsonl",
                      [work_line(f"w{i}", text) for i in range(1_100_000 // len(text.encode()) + 1)])
    proc = run("index", "--db", tmp_path / "db", big)
    assert proc.returncode == 0 and "100%" in proc.stderr and "big.jsonl" in proc.stderr
    quiet = run("index", "--no-progress", "--db", tmp_path / "db", big)
    assert quiet.returncode == 0 and "%" not in quiet.stderr


# --- server backends ---------------------------------------------------------------------

@pytest.fixture
def servers(redis_client, redis_url, mongo_db, mongo_url):
    """(--redis URL, --mongo URL): Redis db 15 (flushed) and a fresh MongoDB database."""
    return ["--redis", redis_url.rsplit("/", 1)[0] + "/15",
            "--mongo", f"{mongo_url.rstrip('/')}/{mongo_db.name}"]


def test_index_and_query_with_redis_and_mongo(servers, redis_client, mongo_db):
    proc = run("index", *servers, WORKS)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("indexed 4 works (0 replaced)")
    assert redis_client.hlen("fp:ids") == 4 and mongo_db["works_fp"].count_documents({}) == 4
    queried = run("query", *servers, PAGES)
    assert queried.returncode == 0, queried.stderr
    check_matches(matches(queried))
    again = run("index", *servers, "--prefix", "other", "--collection", "other_fp", WORKS)
    assert again.stdout.startswith("indexed 4 works (0 replaced)")
    assert mongo_db["other_fp"].count_documents({}) == 4


def test_server_down_exits_3(servers, tmp_path):
    down_redis = ["--redis", f"redis://127.0.0.1:{free_port()}/0", *servers[2:]]
    proc = run("index", *down_redis, WORKS)
    assert proc.returncode == 3 and "cannot reach Redis" in proc.stderr
    assert "Traceback" not in proc.stderr
    down_mongo = [*servers[:2], "--mongo", f"mongodb://127.0.0.1:{free_port()}/x"]
    proc = run("query", *down_mongo, PAGES)
    assert proc.returncode == 3 and "cannot reach MongoDB" in proc.stderr


def test_redis_index_of_another_version_exits_1(servers, redis_client):
    redis_client.set("fp:version", "older-scheme")
    for command, path in (("index", WORKS), ("query", PAGES)):
        proc = run(command, *servers, path)
        assert proc.returncode == 1, proc.stderr
        assert "holds fingerprints of version 'older-scheme'" in proc.stderr
        assert "Traceback" not in proc.stderr
    assert redis_client.hlen("fp:ids") == 0


def test_the_command_line_starts_without_the_redis_and_mongodb_clients():
    # a third of the start-up of `query` on a memory index was importing redis and pymongo
    code = ("import sys, fingerprint.cli, fingerprint.index, fingerprint.store; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'redis', 'pymongo'}))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          check=True)
    assert proc.stdout.strip() == "[]"
    # the backends are still there when asked for
    from fingerprint.index import RedisIndex
    from fingerprint.store import MongoWorkStore
    assert RedisIndex.__name__ == "RedisIndex" and MongoWorkStore.__name__ == "MongoWorkStore"


def answer_of(proc: subprocess.Popen) -> dict:
    """The next line the --per-page process writes, waiting at most 60 s for it."""
    ready, _, _ = select.select([proc.stdout], [], [], 60)
    assert ready, "no answer within 60 s"
    return json.loads(proc.stdout.readline())


def test_query_per_page_answers_each_page_as_it_arrives_on_stdin(db):
    # one process kept open: a page in, its line out, before the next page is written
    pages = records(PAGES)
    proc = subprocess.Popen([sys.executable, "-m", "fingerprint", "query", "--db", str(db),
                             "--per-page", "-"], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        for page_id in ("page-excerpt", "page-reprint"):
            proc.stdin.write(work_line(page_id, pages[page_id]["text"]) + b"\n")
            proc.stdin.flush()
            answer = answer_of(proc)
            assert answer["page_id"] == page_id
            assert {m["work_id"] for m in answer["matches"]} == \
                {w for p, w in EXPECTED if p == page_id}
            assert all(list(m) == KEYS for m in answer["matches"])
        proc.stdin.write(b'{"id": "unrelated", "text": "\xe5\xa4\xa9\xe5\x9c\xb0\xe7\x8e\x84\xe9\xbb\x84 nothing copied here at all, nothing at all, really nothing"}\n')
        proc.stdin.flush()
        assert answer_of(proc) == {"page_id": "unrelated", "matches": []}
        proc.stdin.write(b"not json\n")
        proc.stdin.flush()
        answer = answer_of(proc)
        assert answer["page_id"] is None and answer["line"] == 4
        assert answer["error"].startswith("malformed JSON")
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
        assert "queried 3 pages, 2 with matches" in proc.stderr.read().decode()
    finally:
        proc.kill()


def test_a_rewritten_copy_is_found_through_the_db(tmp_path):
    text = json.loads((FIXTURES.parent / "engine" / "hongloumeng_chapters.json")
                      .read_text(encoding="utf-8"))[1]["text"]
    works = write_lines(tmp_path / "works.jsonl", [work_line("ch", text)])
    page = rewrite(text, random.Random(2), 0.8, 0.5, True)  # the letters no longer align
    pages = write_lines(tmp_path / "pages.jsonl", [work_line("p", page)])
    db = tmp_path / "db"
    assert run("index", "--db", db, works).returncode == 0
    assert (db / "rewrite" / "manifest.json").is_file()
    found = matches(run("query", "--db", db, pages))
    assert [(m["work_id"], m["kind"]) for m in found] == [("ch", "rewritten")]
    # a db indexed before the rewrite keys were kept: rebuilt for the run, and found
    shutil.rmtree(db / "rewrite")
    proc = run("query", "--db", db, pages)
    assert "holds no rewrite keys" in proc.stderr
    assert [(m["work_id"], m["kind"]) for m in matches(proc)] == [("ch", "rewritten")]


def test_the_command_sets_up_numpy_before_importing_it():
    # ``python -m fingerprint`` imports the package, then runs __main__, which starts NumPy's
    # OpenBLAS with one thread (the engine makes no BLAS call): that holds only while importing
    # the package does not import NumPy
    probe = "import sys, fingerprint; print('numpy' in sys.modules, fingerprint.Engine.__name__)"
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=ROOT, check=True)
    assert proc.stdout.split() == ["False", "Engine"]
