"""The RDAP client against a loopback RDAP and IANA-bootstrap server answering RFC 9083 JSON:
the registrar's and the network's abuse addresses are read, and each fault (timeout, 404, 429
with Retry-After, 5xx, malformed JSON, a bootstrap file of the wrong shape) is the exception
that says whether to ask again (lib.crawl.rdap)."""

from __future__ import annotations

import json

import pytest

from lib.crawl import rdap_server
from lib.crawl.rdap import Bootstrap, RdapClient, RdapNotFound, RdapRetryable, retry_after_seconds
from lib.crawl.rdap_server import Answer, json_answer


@pytest.fixture
def server():
    running = rdap_server.serve()
    running.answers.update(rdap_server.bootstrap(running.url, ["example", "co.example"],
                                                 ["192.0.2.0/24", "192.0.0.0/16"]))
    yield running
    running.stop()


def test_the_registrar_and_host_abuse_addresses_are_read(server):
    server.answers["/domain/pirate.example"] = [json_answer(rdap_server.domain_record(
        "pirate.example", "Registrar Inc", "abuse@registrar.example"))]
    server.answers["/ip/192.0.2.7"] = [json_answer(rdap_server.network_record(
        "192.0.2.0/24", "Hosting Ltd", "abuse@hosting.example"))]
    client = RdapClient(server.url, timeout=2)

    [registrar] = client.domain_abuse("pirate.example")
    [host] = client.ip_abuse("192.0.2.7")

    assert (registrar.address, registrar.holder) == ("abuse@registrar.example", "Registrar Inc")
    assert registrar.url == server.url + "/domain/pirate.example"
    assert (host.address, host.holder) == ("abuse@hosting.example", "Hosting Ltd")
    assert server.hits.count("/dns.json") == 1  # the bootstrap file is read once per client


def test_the_longest_bootstrap_match_wins():
    boot = rdap_server.bootstrap("http://a", ["example"], ["192.0.0.0/16"])
    data = Bootstrap()
    data.add("dns", {"services": [[["example"], ["http://tld/"]], [["co.example"], ["http://sld"]]]})
    data.add("ipv4", {"services": [[["192.0.0.0/16"], ["http://wide/"]],
                                   [["192.0.2.0/24"], ["http://narrow/"]]]})
    assert data.for_domain("www.x.co.example") == ["http://sld/"]
    assert data.for_domain("x.example") == ["http://tld/"]
    assert data.for_ip("192.0.2.9") == ["http://narrow/"]
    assert data.for_ip("198.51.100.1") == []
    assert json.loads(boot["/dns.json"][0].body)["services"][0][0] == ["example"]


@pytest.mark.parametrize("answer, kind, after", [
    (Answer(404, b'{"errorCode": 404}'), RdapNotFound, None),
    (Answer(429, b"{}", {"Retry-After": "120"}), RdapRetryable, 120.0),
    (Answer(503, b"busy"), RdapRetryable, None),
    (Answer(200, b'{"objectClassName": "domain", "entities": [ '), RdapRetryable, None),
    (Answer(200, b"[1, 2]"), RdapRetryable, None),
    (Answer(200, b"{}", delay=1.5), RdapRetryable, None),
])
def test_each_fault_says_whether_to_ask_again(server, answer, kind, after):
    server.answers["/domain/pirate.example"] = [answer]
    with pytest.raises(kind) as raised:
        RdapClient(server.url, timeout=0.5).domain_abuse("pirate.example")
    if kind is RdapRetryable:
        assert raised.value.retry_after == after


def test_no_server_for_the_tld_and_a_broken_bootstrap(server):
    with pytest.raises(RdapNotFound, match="no RDAP server for pirate.test"):
        RdapClient(server.url, timeout=2).domain_abuse("pirate.test")
    server.answers["/dns.json"] = [json_answer({"services": "nonsense"})]
    with pytest.raises(RdapRetryable, match="RFC 9224"):
        RdapClient(server.url, timeout=2).domain_abuse("pirate.example")


def test_retry_after_reads_seconds_and_dates():
    assert retry_after_seconds("30") == 30.0
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412480.0 - 60) == 60.0
    assert retry_after_seconds("soon") is None and retry_after_seconds(None) is None


def test_icp_numbers_and_refusals():
    from lib.crawl.contacts import icp_numbers, refusal

    page = ("<html><body><footer>© 示例 <a>京ICP备12345678号-1</a> 京公网安备11010502030143号"
            " 粤 ICP 证 030173 号</footer><script>'沪ICP备99999999号'</script></body></html>")
    assert icp_numbers(page) == ["京ICP备12345678号-1", "粤ICP证030173号"]
    assert refusal("a" * 290 + "@x.example").startswith("longer than 254")
    assert refusal("abuse@x.example\r\nBcc: all@x.example") == "a line break"
    assert refusal("not an address") == "not an e-mail address"
    assert refusal("abuse@x.example") is None
