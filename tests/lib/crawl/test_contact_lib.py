"""The takedown addresses a site publishes (lib.crawl.contacts): mailto: links, security.txt
Contact lines (RFC 9116), addresses written on a contact page, and the links to such pages."""

from __future__ import annotations

from lib.crawl import contacts

HOME = """<html><body>
<a href="/contact.html">联系我们</a> <a href="/about/">About us</a>
<a href="https://other.example.org/contact">elsewhere</a> <a href="/book/1.html">第一章</a>
<a href="mailto:Editor@Copy.Example.COM?subject=hi">编辑</a>
<a href="mailto:a@copy.example.com,b@copy.example.com">two</a>
<a href="mailto:not-an-address">broken</a>
<script>var x = "hidden@copy.example.com";</script>
</body></html>"""


def test_mailto_links_give_each_address_once_with_the_domain_lower_cased():
    assert contacts.mailto_addresses(HOME) == ["Editor@copy.example.com", "a@copy.example.com",
                                               "b@copy.example.com"]
    assert contacts.mailto_addresses("") == []


def test_written_addresses_skip_scripts():
    page = "<p>侵权投诉请发邮件至 legal@copy.example.com。Or abuse@copy.example.com.</p>" + HOME
    assert contacts.written_addresses(page) == ["legal@copy.example.com",
                                                "abuse@copy.example.com"]


def test_security_txt_contact_lines():
    text = ("# Our security policy\n"
            "Contact: mailto:security@copy.example.com\n"
            "contact: https://copy.example.com/report\n"
            "CONTACT: abuse@copy.example.com\n"
            "Contact: tel:+1-201-555-0123\n"
            "Expires: 2030-01-01T00:00:00.000Z\n"
            "# Contact: mailto:commented@copy.example.com\n")
    assert contacts.security_txt_addresses(text) == ["security@copy.example.com",
                                                     "abuse@copy.example.com"]
    assert contacts.security_txt_addresses("<html>not found</html>") == []


def test_contact_page_links_stay_on_the_host():
    assert contacts.contact_page_links(HOME, "https://copy.example.com/") == [
        "https://copy.example.com/contact.html", "https://copy.example.com/about/"]


def test_normal_address_refuses_what_is_not_one_address():
    assert contacts.normal_address(" mailto:x%40copy.example.com ") == "x@copy.example.com"
    for bad in ("", "x@", "@copy.example.com", "x@localhost", "x y@copy.example.com"):
        assert contacts.normal_address(bad) is None
