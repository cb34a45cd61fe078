"""Takedown contact addresses found in a site's own documents (Django-free).

Three sources, each a pure function of a fetched document: ``mailto:`` links of an HTML page
(RFC 6068), the ``Contact:`` lines of a ``/.well-known/security.txt`` (RFC 9116 §2.5.3; a tiny
parser: only those lines are read, signatures are not checked), and the addresses written out
on a contact page. ``contact_page_links`` picks, among a page's links, those that lead to a
contact, legal or copyright page (the wording of Chinese and English sites).
"""

from __future__ import annotations

import re
from urllib.parse import unquote, urljoin, urlsplit

from lxml import etree
from lxml import html as lxml_html

SECURITY_TXT_PATH = "/.well-known/security.txt"
# An address as written in pages: local part and a domain with a dot (RFC 5322's dot-atom,
# the common subset); the domain ends on a letter so that "a@b.c." keeps no trailing dot.
_ADDRESS = re.compile(r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
# The longest address SMTP carries (RFC 5321 §4.5.3.1: a 64-octet local part, a 254-character
# path without its angle brackets): anything longer is not an address anyone can write to.
MAX_LOCAL_CHARS, MAX_ADDRESS_CHARS = 64, 254
# Link texts or paths of a page naming how to reach the site's operator.
_CONTACT_WORDS = re.compile(r"contact|about|legal|copyright|dmca|abuse|impressum|"
                            r"联系|聯繫|关于|關於|版权|版權|侵权|侵權|投诉|投訴|法律", re.IGNORECASE)


def normal_address(text: str) -> str | None:
    """``text`` as one e-mail address (lower-cased domain, surrounding blanks and a
    ``mailto:`` prefix removed), or None when it is not one address or is longer than SMTP
    allows (MAX_LOCAL_CHARS before the "@", MAX_ADDRESS_CHARS in all)."""
    text = unquote(text.strip())
    if text.lower().startswith("mailto:"):
        text = text[7:]
    text = text.split("?", 1)[0].strip()
    if len(text) > MAX_ADDRESS_CHARS or not _ADDRESS.fullmatch(text):
        return None
    local, domain = text.rsplit("@", 1)
    if len(local) > MAX_LOCAL_CHARS:
        return None
    return f"{local}@{domain.lower()}"


def _tree(document: str):
    try:
        return lxml_html.fromstring(document)
    except (etree.ParserError, ValueError):
        return None


def _visible_text(document: str) -> str:
    """The text of HTML ``document`` without its scripts and styles ("" when unreadable)."""
    tree = _tree(document)
    if tree is None:
        return ""
    for element in tree.iter("script", "style"):
        element.drop_tree()
    return tree.text_content()


def mailto_addresses(document: str) -> list[str]:
    """The addresses of the ``mailto:`` links of HTML ``document`` (str), in document order,
    without repeats; a link naming several addresses (comma-separated) gives each."""
    tree = _tree(document)
    found: list[str] = []
    for element in [] if tree is None else tree.iter("a", "area"):
        href = (element.get("href") or "").strip()
        if not href.lower().startswith("mailto:"):
            continue
        for part in href[7:].split("?", 1)[0].split(","):
            address = normal_address(part)
            if address and address not in found:
                found.append(address)
    return found


def written_addresses(document: str) -> list[str]:
    """The addresses written in the visible text of HTML ``document`` (str), in order, without
    repeats (for a contact page, where they are often not links)."""
    found: list[str] = []
    for match in _ADDRESS.finditer(_visible_text(document)):
        address = normal_address(match.group())
        if address and address not in found:
            found.append(address)
    return found


def security_txt_addresses(text: str) -> list[str]:
    """The e-mail addresses of the ``Contact:`` fields of a security.txt (str): ``mailto:``
    URIs and bare addresses; https and tel contacts are skipped. Field names are
    case-insensitive and comment lines ("#") ignored, as RFC 9116 §2.3 and §2.5.3 say."""
    found: list[str] = []
    for line in text.splitlines():
        name, colon, value = line.partition(":")
        if not colon or line.lstrip().startswith("#") or name.strip().lower() != "contact":
            continue
        address = normal_address(value)
        if address and address not in found:
            found.append(address)
    return found


def contact_page_links(document: str, base_url: str) -> list[str]:
    """The absolute http(s) URLs of the links of HTML ``document`` whose text, title or path
    names a contact, about, legal or copyright page, on the same host as ``base_url``, in
    document order without repeats (fragments removed)."""
    tree = _tree(document)
    if tree is None:
        return []
    host = urlsplit(base_url).hostname
    found: list[str] = []
    for element in tree.iter("a"):
        href = (element.get("href") or "").strip()
        url = urljoin(base_url, href).split("#", 1)[0]
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or parts.hostname != host:
            continue
        label = " ".join([element.text_content(), element.get("title") or "", parts.path])
        if _CONTACT_WORDS.search(label) and url not in found and url != base_url:
            found.append(url)
    return found


# An ICP filing (备案) or licence (经营许可证) number as Chinese sites print it in their footer:
# the province's one-character abbreviation, "ICP备" or "ICP证", the number, "号", and for a
# filing the site's sequence number ("京ICP备12345678号-1").
_ICP = re.compile(r"[\u4e00-\u9fff]\s*ICP\s*[备備证證]\s*(\d{4,12})\s*号(?:\s*-\s*(\d{1,4}))?")


def icp_numbers(document: str) -> list[str]:
    """The ICP filing or licence numbers written in the visible text of HTML ``document``
    (str), normalised without blanks ("京ICP备12345678号-1"), in order without repeats."""
    found: list[str] = []
    for match in _ICP.finditer(_visible_text(document)):
        number = re.sub(r"\s+", "", match.group())
        if number not in found:
            found.append(number)
    return found


def refusal(address: str) -> str | None:
    """Why ``address`` (str, as a page or an RDAP server wrote it) cannot be a takedown
    contact, in English words ("a line break", "longer than 254 characters", "not an e-mail
    address"), or None when it is one address SMTP can carry."""
    if "\r" in address or "\n" in address:
        return "a line break"
    if len(address.strip()) > MAX_ADDRESS_CHARS:
        return f"longer than {MAX_ADDRESS_CHARS} characters"
    if normal_address(address) is None:
        return "not an e-mail address"
    return None
