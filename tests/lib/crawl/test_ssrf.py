"""SSRF guard (lib.crawl.ssrf): address categories, allow-list, pre-check and connect-time check."""

import pytest
import requests

from lib.crawl.ssrf import (
    GuardedAdapter,
    RefusedAddress,
    check_url,
    forbidden_reason,
    parse_allow_list,
)


@pytest.mark.parametrize("address,reason", [
    ("127.0.0.1", "loopback"), ("::1", "loopback"), ("10.1.2.3", "private"),
    ("192.168.0.9", "private"), ("172.16.5.5", "private"), ("169.254.169.254", "link_local"),
    ("fe80::1", "link_local"), ("224.0.0.1", "multicast"), ("0.0.0.0", "unspecified"),
    ("::ffff:127.0.0.1", "loopback"), ("100.64.0.1", "reserved"),
])
def test_forbidden_categories(address, reason):
    assert forbidden_reason(address) == reason


def test_public_address_passes_and_allow_list_overrides():
    assert forbidden_reason("93.184.216.34") is None
    allow = parse_allow_list(["127.0.0.1", "10.0.0.0/8"])
    assert forbidden_reason("127.0.0.1", allow) is None
    assert forbidden_reason("10.9.9.9", allow) is None
    assert forbidden_reason("127.0.0.2", allow) == "loopback"


def test_bad_allow_list_entry_is_a_clear_error():
    with pytest.raises(ValueError, match="not-an-ip"):
        parse_allow_list(["not-an-ip"])


def test_check_url_refuses_private_literal_and_unresolvable_host():
    with pytest.raises(RefusedAddress) as err:
        check_url("http://192.168.1.1/admin")
    assert err.value.reason == "private"
    with pytest.raises(RefusedAddress) as err:
        check_url("http://no-such-host.invalid/")
    assert err.value.reason == "unresolvable"


def test_adapter_refuses_the_connected_peer_even_when_the_precheck_is_skipped(site):
    site.route("/", site.html("<p>secret</p>"))
    session = requests.Session()
    session.mount("http://", GuardedAdapter(()))
    with pytest.raises(requests.ConnectionError) as err:
        session.get(site.url("/"), timeout=2)
    assert "loopback" in str(err.value)
    allowed = requests.Session()
    allowed.mount("http://", GuardedAdapter(parse_allow_list(["127.0.0.1"])))
    assert allowed.get(site.url("/"), timeout=2).status_code == 200
