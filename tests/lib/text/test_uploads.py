"""Uploads (lib.text.extract_file through core.text_extraction): every accepted format yields
its text, chapters, title and author; every bad input a clear error in the user's language."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.utils import translation

from core.text_extraction import UploadError, extract_file, extract_pasted
from lib.text import decode_bytes, extract_document, normalize


@pytest.fixture(autouse=True)
def english():
    """Messages in English here; test_messages_follow_the_language checks the Chinese ones."""
    with translation.override("en"):
        yield


def _pdf(text: str) -> bytes:
    """A one-page PDF showing ``text`` (ASCII) in Helvetica, with a correct xref table."""
    stream = f"BT /F1 18 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
               b"/Resources << /Font << /F1 5 0 R >> >> >>",
               b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, xref)
    return bytes(out)


def _docx(paragraphs: list[tuple[str, str]], title: str = "") -> bytes:
    """A .docx made by python-docx: its core properties say author "python-docx" and
    ``title``; paragraphs ("title", "h1" or "p", text)."""
    import docx

    document = docx.Document()
    document.core_properties.title = title
    for style, text in paragraphs:
        if style == "title":
            document.add_heading(text, level=0)
        elif style == "h1":
            document.add_heading(text, level=1)
        else:
            document.add_paragraph(text)
    buf = io.BytesIO()
    document.save(buf)
    return buf.getvalue()


def _epub(chapters: list[tuple[str, str]], title: str = "测试之书", author: str = "佚名") -> bytes:
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("test-book")
    book.set_title(title)
    book.set_language("zh")
    book.add_author(author)
    items = []
    for n, (title, body) in enumerate(chapters, 1):
        item = epub.EpubHtml(title=title, file_name=f"c{n}.xhtml", lang="zh")
        item.content = f"<html><body><h1>{title}</h1><p>{body}</p></body></html>"
        book.add_item(item)
        items.append(item)
    book.toc = items
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = items
    buf = io.BytesIO()
    epub.write_epub(buf, book)
    return buf.getvalue()


def test_txt_utf8_novel_gets_title_author_and_chapters(novel_text):
    got = extract_file("xiyouji.txt", novel_text.encode("utf-8"))
    assert got.encoding == "utf-8" and got.format == "txt"
    assert got.title == "西游记（第一回至第三回）" and got.author == "吴承恩"
    assert [s["title"][:3] for s in got.sections] == ["第一回", "第二回", "第三回"]
    for section in got.sections:
        assert got.text[section["start"]:].startswith(section["title"])
    assert got.sections[-1]["end"] == len(got.text)
    assert got.sections[0]["end"] == got.sections[1]["start"]


@pytest.mark.parametrize("codec, expected", [("gbk", "gb18030"), ("gb2312", "gb18030"),
                                             ("gb18030", "gb18030"), ("utf-16", "utf-16-le")])
def test_txt_chinese_encodings_are_detected(novel_text, codec, expected):
    sample = novel_text[:3000]
    data = sample.encode(codec, errors="ignore")
    got = extract_file("a.txt", data)
    assert got.encoding == expected
    assert got.text == normalize(data.decode(codec))


def test_txt_big5_traditional_is_detected(novel_text):
    import opencc

    traditional = opencc.OpenCC("s2t").convert(novel_text[:3000])
    data = traditional.encode("big5", errors="ignore")
    got = extract_file("trad.txt", data)
    assert got.encoding == "big5hkscs"
    assert got.text == normalize(data.decode("big5"))


def test_html_body_is_extracted_from_a_real_news_page(news_html):
    got = extract_file("page.html", news_html)
    assert got.format == "html" and got.encoding == "utf-8"
    assert "日本现存的唯一一家提供传呼机服务的营运商" in got.text
    assert "<div" not in got.text and len(got.text) < 2000  # navigation and scripts left out


def test_html_in_gbk_without_declared_charset(news_html):
    page = news_html.decode("utf-8").replace('charset="utf-8"', "").replace("charset=utf-8", "")
    got = extract_file("page.htm", page.encode("gb18030"))
    assert got.encoding == "gb18030"
    assert "日本现存的唯一一家提供传呼机服务的营运商" in got.text


def test_docx_headings_become_sections():
    data = _docx([("title", "山与庙"), ("p", "作者：李四"), ("h1", "第一章 开端"),
                  ("p", "很久以前，有一座山。"), ("h1", "第二章 发展"), ("p", "山上有一座庙。")],
                 title="Document1")
    got = extract_file("book.docx", data)
    assert (got.title, got.author) == ("山与庙", "李四")  # the content, not the properties
    assert [s["title"] for s in got.sections] == ["第一章 开端", "第二章 发展"]
    assert got.text[got.sections[1]["start"]:got.sections[1]["end"]].endswith("山上有一座庙。")


def test_docx_section_offsets_survive_blank_paragraphs_and_trailing_spaces():
    data = _docx([("h1", "第一章 开端"), ("p", "甲乙丙  "), ("p", ""), ("p", ""), ("p", ""),
                  ("p", "丁戊 结束  "), ("h1", "第二章 发展"), ("p", "己庚辛。")])
    got = extract_file("book.docx", data)
    first, second = got.sections
    assert got.text[first["start"]:].startswith("第一章 开端")
    assert got.text[first["start"]:first["end"]].rstrip().endswith("丁戊 结束")
    assert first["end"] == second["start"]
    assert got.text[second["start"]:second["end"]] == "第二章 发展\n己庚辛。"


def test_pdf_text_layer():
    got = extract_file("doc.pdf", _pdf("Copyright tracking works"))
    assert got.format == "pdf" and "Copyright tracking works" in got.text


def test_epub_spine_documents_become_sections():
    data = _epub([("第一回 石猴出世", "东胜神洲海外有一国土，名曰傲来国。"),
                  ("第二回 拜师学艺", "美猴王得了姓名，怡然踊跃。")])
    got = extract_file("book.epub", data)
    assert got.title == "测试之书" and got.author == "佚名"
    assert [s["title"] for s in got.sections] == ["第一回 石猴出世", "第二回 拜师学艺"]
    assert "怡然踊跃" in got.text[got.sections[1]["start"]:got.sections[1]["end"]]


def test_pasted_text_is_normalized_and_split():
    got = extract_pasted("\ufeff第一章 起\r\n甲乙丙丁。\r\n\r\n\r\n\r\n第二章 承\r\n戊己庚辛。  \r\n")
    assert got.text == "第一章 起\n甲乙丙丁。\n\n第二章 承\n戊己庚辛。"
    assert [s["title"] for s in got.sections] == ["第一章 起", "第二章 承"]


def _docx_with_body(body: str) -> bytes:
    """A python-docx .docx whose word/document.xml body is ``body`` (raw XML text after
    ``<w:body>``, which may be cut short)."""
    source = zipfile.ZipFile(io.BytesIO(_docx([("p", "占位")])))
    head = source.read("word/document.xml").decode().split("<w:body>")[0]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as copy:
        for info in source.infolist():
            copy.writestr(info.filename, head + "<w:body>" + body
                          if info.filename == "word/document.xml" else source.read(info.filename))
    return out.getvalue()


def _error(name: str, data: bytes) -> UploadError:
    with pytest.raises(UploadError) as info:
        extract_file(name, data)
    return info.value


def test_empty_file_and_text_without_letters():
    assert _error("a.txt", b"").code == "empty"
    assert _error("a.txt", "。，、 \n\n ——".encode()).code == "empty"
    with pytest.raises(UploadError) as info:
        extract_pasted("   \n\t ")
    assert info.value.code == "empty"


def test_too_large(settings):
    settings.UPLOAD_MAX_BYTES = 1000
    error = _error("a.txt", "字".encode() * 400)
    assert error.code == "too_large" and "limit" in str(error)


def test_unsupported_suffix_and_foreign_content():
    assert _error("a.exe", b"MZ\x90\x00").code == "unsupported"
    error = _error("a.txt", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 100)
    assert error.code == "unsupported" and ".doc" in str(error)
    assert _error("a.txt", b"\x89PNG\r\n\x1a\n" + b"\x00" * 50).code == "unsupported"


def test_content_must_match_the_name():
    error = _error("fake.pdf", "这不是PDF，只是文字。".encode())
    assert error.code == "mismatch" and "plain text" in str(error)
    assert _error("fake.docx", _pdf("hello")).code == "mismatch"
    assert _error("fake.epub", _docx([("p", "正文")])).code == "mismatch"


def test_corrupt_files():
    docx_bytes = _docx([("p", "正文内容")])
    assert _error("broken.docx", docx_bytes[: len(docx_bytes) // 2]).code == "corrupt"
    assert _error("broken.pdf", b"%PDF-1.4\nthis is not a PDF body at all").code == "corrupt"


def test_encrypted_pdf():
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(_pdf("secret text"))))
    writer.encrypt(user_password="pw", algorithm="RC4-128")
    buf = io.BytesIO()
    writer.write(buf)
    error = _error("locked.pdf", buf.getvalue())
    assert error.code == "encrypted" and "password" in str(error)


def test_messages_follow_the_language():
    with translation.override("zh-hans"):
        error = _error("fake.pdf", "这不是PDF，只是文字。".encode())
    assert "扩展名是 .pdf，但内容是纯文本" in str(error)


def test_archive_bomb_is_refused_before_expansion():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("word/document.xml", b"\0" * (40 * 1024 * 1024))
    assert len(buf.getvalue()) < 200_000  # 40 MB compressed into a small file
    error = _error("bomb.docx", buf.getvalue())
    assert error.code == "archive_bomb"


def test_undecodable_text():
    data = bytes(range(0x80, 0x100)) * 3  # no supported encoding reads this as text
    assert _error("noise.txt", data).code in ("encoding", "unsupported")


def test_docx_title_from_first_short_paragraph_never_from_properties():
    import docx

    document = docx.Document()
    assert document.core_properties.author == "python-docx"
    document.core_properties.last_modified_by = "PC-USER-01"
    for line in ("春江花月夜", "春江潮水连海平，海上明月共潮生。滟滟随波千万里，何处春江无月明。"):
        document.add_paragraph(line)
    buf = io.BytesIO()
    document.save(buf)
    got = extract_file("poem.docx", buf.getvalue())
    assert got.title == "春江花月夜"
    assert got.author == ""  # neither "python-docx" nor "PC-USER-01"


def test_docx_heading_1_that_is_not_a_chapter_is_the_title():
    got = extract_file("a.docx", _docx([("h1", "Annual Report"), ("p", "Body text of the report.")]))
    assert got.title == "Annual Report"


def _pdf_lines(lines: list[tuple[int, str]], author: str = "PC-USER-01") -> bytes:
    """A one-page PDF with lines (font size in points, ASCII text) and an /Author entry."""
    ops, y = [], 720
    for size, text in lines:
        ops.append(f"BT /F1 {size} Tf 72 {y} Td ({text}) Tj ET")
        y -= size + 12
    stream = "\n".join(ops).encode()
    data = _pdf("x")
    return data.replace(b"BT /F1 18 Tf 72 720 Td (x) Tj ET", stream).replace(
        b"<< /Length 31 >>", b"<< /Length %d >>" % len(stream))


def test_pdf_title_is_its_heading_line_not_its_metadata():
    data = _pdf_lines([(12, "Annual report of the press"), (24, "The Copyright Story"),
                       (12, "Author: Jane Roe"), (12, "It begins on a quiet morning.")])
    got = extract_file("story.pdf", data)
    assert got.title == "The Copyright Story" and got.author == "Jane Roe"


def test_epub_title_and_author_from_dublin_core():
    got = extract_file("b.epub", _epub([("第一回", "东胜神洲海外有一国土，名曰傲来国。")]))
    assert (got.title, got.author) == ("测试之书", "佚名")


def test_epub_with_empty_title_and_author_elements_is_read():
    """<dc:title/> and <dc:creator/> are empty: no title or author from them, the text is read."""
    got = extract_file("b.epub", _epub([("第一回", "东胜神洲海外有一国土，名曰傲来国。")],
                                       title="", author=""))
    assert got.author == "" and "傲来国" in got.text


def test_same_html_gives_same_text_and_offsets_uploaded_or_crawled(news_html):
    uploaded = extract_file("page.html", news_html)
    decoded = decode_bytes(news_html, "text/html; charset=utf-8")
    crawled = extract_document(decoded.text, "html", "https://baijiahao.baidu.com/s?id=1")
    assert crawled.ok and uploaded.text == crawled.text
    assert uploaded.sections == crawled.sections and uploaded.title == crawled.title
    gbk = news_html.decode("utf-8").replace('charset="utf-8"', "").encode("gb18030")
    assert extract_file("page.htm", gbk).text == extract_document(decode_bytes(gbk).text).text


def test_docx_text_limit_is_enforced_while_reading(settings):
    """A .docx whose body holds more text than a work may: refused as too long once the limit
    is passed, without reading the rest of the document (here a rest that is not even XML,
    which a reader building the whole tree first reports as a damaged file)."""
    settings.WORK_TEXT_MAX_CHARS = 2000
    paragraph = "<w:p><w:r><w:t>" + "长文本" * 30 + "</w:t></w:r></w:p>"
    data = _docx_with_body(paragraph * 100 + "<w:p><w:r><w:t>not closed")
    with translation.override("en"):
        error = _error("long.docx", data)
    assert error.code == "too_large"
    assert str(error) == "The text has more than 2000 characters, the most a work may have."


def test_docx_of_empty_paragraphs_stops_at_the_parts_limit(settings):
    """Blank paragraphs add no text, so the text limit never stops a body of millions of
    ``<w:p/>``: the reader stops past WORK_TEXT_MAX_PARTS paragraphs (the rest, not even XML,
    unread)."""
    settings.WORK_TEXT_MAX_PARTS = 500
    data = _docx_with_body("<w:p/>" * 1000 + "<w:p><w:r><w:t>not closed")
    with translation.override("zh-hans"):
        error = _error("blank.docx", data)
    assert (error.code, str(error)) == (
        "too_large", "DOCX 文件的段落、页或章节超过 500 个，超出一部作品的上限。")


@pytest.mark.parametrize("name", ["long.epub", "long.pdf"])
def test_epub_and_pdf_text_limit_is_enforced_while_reading(settings, name):
    """EPUB documents and PDF pages are counted as they are read: past the limit the file is
    refused as too long, the rest left unread."""
    settings.WORK_TEXT_MAX_CHARS = 40
    data = (_epub([(f"第{n}回", "东胜神洲海外有一国土，名曰傲来国。" * 3) for n in range(5)])
            if name.endswith(".epub") else _pdf("Long line of the report text " * 3))
    with translation.override("en"):
        error = _error(name, data)
    assert (error.code, str(error)) == (
        "too_large", "The text has more than 40 characters, the most a work may have.")


_CONTAINER = ('<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:'
              'opendocument:xmlns:container"><rootfiles><rootfile full-path="content.opf" '
              'media-type="application/oebps-package+xml"/></rootfiles></container>')
_OPF_HEAD = ('<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" '
             'unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
             '<dc:identifier id="id">x</dc:identifier><dc:title>T</dc:title></metadata>')
_CHAPTER = '<item id="c" href="c.xhtml" media-type="application/xhtml+xml"/>'
BROKEN_EPUB_PACKAGES = {
    "no spine": f"<manifest>{_CHAPTER}</manifest>",
    "no manifest": '<spine><itemref idref="c"/></spine>',
    "an item without href": '<manifest><item id="c" media-type="application/xhtml+xml"/>'
                            '</manifest><spine><itemref idref="c"/></spine>',
    "an empty navigation document": '<manifest><item id="n" href="n.xhtml" properties="nav" '
                                    f'media-type="application/xhtml+xml"/>{_CHAPTER}</manifest>'
                                    '<spine><itemref idref="c"/></spine>',
}


def broken_epub(case: str) -> bytes:
    """An EPUB whose package document (content.opf) has the defect ``case`` names."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("mimetype", "application/epub+zip")
        archive.writestr("META-INF/container.xml", _CONTAINER)
        archive.writestr("content.opf", _OPF_HEAD + BROKEN_EPUB_PACKAGES[case] + "</package>")
        archive.writestr("c.xhtml", '<html xmlns="http://www.w3.org/1999/xhtml"><body><p>'
                                    "东胜神洲海外有一国土，名曰傲来国。</p></body></html>")
        archive.writestr("n.xhtml", "<html><body><nav>")
    return out.getvalue()


@pytest.mark.parametrize("case", list(BROKEN_EPUB_PACKAGES))
def test_an_epub_with_a_broken_package_is_a_damaged_file(case):
    assert _error("broken.epub", broken_epub(case)).code == "corrupt"


@pytest.mark.parametrize("offset", [40, 240])
def test_a_docx_with_damaged_compressed_text_is_a_damaged_file(offset):
    """One byte of the compressed document.xml flipped: bad deflate data or a bad CRC."""
    data = bytearray(_docx([("p", f"正文内容 {n}") for n in range(200)]))
    info = zipfile.ZipFile(io.BytesIO(bytes(data))).getinfo("word/document.xml")
    data[info.header_offset + 30 + len(info.filename) + len(info.extra) + offset] ^= 0xFF
    assert _error("damaged.docx", bytes(data)).code == "corrupt"
