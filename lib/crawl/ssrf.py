"""SSRF defence: refuse to connect to loopback, private, link-local, multicast and reserved addresses.

Two checks, because a DNS name may resolve differently the second time (DNS rebinding):
``check_url`` resolves the host before a request is sent (and before each redirect hop), giving a
clear reason; ``GuardedAdapter`` re-checks the address the socket actually connected to, so a
name that resolved to a public address in the first check and to 127.0.0.1 in the second is
still refused. The categories are Python's ``ipaddress`` properties (IANA special-purpose
registries, RFC 6890); OWASP's SSRF prevention cheat sheet recommends exactly this deny list.
"""

from __future__ import annotations

import _ssl  # the DER encoding of the private chain API (Python 3.10 to 3.12)
import ipaddress
import operator
import socket
import ssl
from collections.abc import Iterable
from urllib.parse import urlsplit

from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from lib.crawl.errors import CrawlerError

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class RefusedAddress(CrawlerError, ConnectionError):
    """A URL whose host resolves to a forbidden address. ``reason`` names the category
    ('loopback', 'private', 'link_local', 'multicast', 'reserved', 'unspecified') or 'unresolvable';
    ``address`` is the offending address (str, '' when unresolvable)."""

    def __init__(self, host: str, address: str, reason: str):
        super().__init__(f"refused {host} -> {address or '?'}: {reason}")
        self.host, self.address, self.reason = host, address, reason


def parse_allow_list(entries: Iterable[str]) -> tuple[Network, ...]:
    """Turn addresses or CIDR networks (str, e.g. '127.0.0.1', '10.0.0.0/8') into networks.

    Raises ValueError naming the entry that is neither.
    """
    nets = []
    for entry in entries:
        try:
            nets.append(ipaddress.ip_network(entry.strip(), strict=False))
        except ValueError as exc:
            raise ValueError(f"SSRF allow-list entry {entry!r} is not an IP address or network") from exc
    return tuple(nets)


def forbidden_reason(address: str, allow: tuple[Network, ...] = ()) -> str | None:
    """Return why ``address`` (an IP address as str) may not be contacted, or None if it may.

    Addresses inside a network of ``allow`` are always permitted. IPv4-mapped IPv6 addresses
    are judged as their IPv4 address.
    """
    ip: Address = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    if any(ip in net for net in allow):
        return None
    for attr, reason in (
        ("is_loopback", "loopback"),
        ("is_link_local", "link_local"),
        ("is_multicast", "multicast"),
        ("is_unspecified", "unspecified"),
        ("is_private", "private"),
        ("is_reserved", "reserved"),
    ):
        if getattr(ip, attr):
            return reason
    return None if ip.is_global else "reserved"


def literal_address(host: str) -> str | None:
    """The IP address ``host`` spells (str), or None for a host name: standard IPv4 and IPv6
    forms, and the forms a resolver also reads as IPv4 (inet_aton(3)), e.g. decimal
    ``2130706433``, hexadecimal ``0x7f000001`` or octal ``0177.0.0.1`` for 127.0.0.1."""
    try:
        return str(ipaddress.ip_address(host.strip("[]").split("%", 1)[0]))
    except ValueError:
        pass
    if host and all(ch in "0123456789abcdefxABCDEFX." for ch in host):
        try:
            return socket.inet_ntoa(socket.inet_aton(host))
        except OSError:
            return None
    return None


def check_literal(url: str, allow: tuple[Network, ...] = ()) -> None:
    """Refuse ``url`` without any DNS lookup when its host is an address literal (any form of
    ``literal_address``) or ``localhost`` that may not be contacted; host names are left to
    ``check_url`` at fetch time.

    Raises:
        RefusedAddress: the address and the reason ('loopback', 'link_local', ...).
    """
    host = (urlsplit(url).hostname or "").lower()
    address = "127.0.0.1" if host == "localhost" or host.endswith(".localhost") else \
        literal_address(host)
    reason = forbidden_reason(address, allow) if address else None
    if address and reason:
        raise RefusedAddress(host, address, reason)


def check_url(url: str, allow: tuple[Network, ...] = ()) -> list[str]:
    """Resolve the host of ``url`` and check every address it resolves to.

    Returns the list of addresses (str). Raises RefusedAddress when the host does not resolve
    ('unresolvable') or when any address is forbidden (one bad address is enough: the resolver
    may hand that one to the connection).
    """
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise RefusedAddress(host, "", "unresolvable") from exc
    addresses = sorted({str(info[4][0]) for info in infos})
    for address in addresses:
        reason = forbidden_reason(address, allow)
        if reason:
            raise RefusedAddress(host, address, reason)
    return addresses


def _guarded(base: type[HTTPConnection], allow: tuple[Network, ...]) -> type[HTTPConnection]:
    class Guarded(base):  # type: ignore[misc, valid-type]
        def _new_conn(self):
            sock = super()._new_conn()
            address = sock.getpeername()[0]
            reason = forbidden_reason(address, allow)
            if reason:
                sock.close()
                raise RefusedAddress(self.host, address, reason)
            return sock

        def getresponse(self):
            # the peer as the evidence of the exchange records it (lib.crawl.exchange): the
            # connection may be back in the pool before the caller looks at the response
            # (read before the response: http.client closes a connection that will not be kept
            # alive, an HTTP/1.0 answer's, once the headers are in)
            peer = self.sock.getpeername()[:2] if self.sock else ("", 0)
            certificates, tls = _peer_certificates(self.sock), tls_session(self.sock)
            response = super().getresponse()
            response.peer, response.peer_certificates, response.peer_tls = peer, certificates, tls
            return response

    return Guarded


def _peer_certificates(sock) -> list[bytes]:
    """DER certificates a TLS peer presented, leaf first, as it sent them (the whole chain:
    ``get_unverified_chain``, public from Python 3.13, on the ssl object since 3.10); [] for
    plain HTTP."""
    if not isinstance(sock, ssl.SSLSocket):
        return []
    chain = (getattr(sock, "get_unverified_chain", None)
             or operator.attrgetter("_sslobj.get_unverified_chain")(sock))
    return [c if isinstance(c, bytes) else c.public_bytes(_ssl.ENCODING_DER) for c in chain() or []]


def tls_session(sock) -> dict:
    """What a TLS connection negotiated, for the evidence: ``version`` ("TLSv1.3"), ``cipher``
    (OpenSSL's name), ``sni`` (the server name sent), ``validation`` ("verified": the chain
    and the host name were checked against the trust store before any byte was sent; "not
    checked" for a connection made without verification). {} for plain HTTP."""
    if not isinstance(sock, ssl.SSLSocket):
        return {}
    checked = sock.context.verify_mode == ssl.CERT_REQUIRED and sock.context.check_hostname
    return {"version": sock.version() or "", "cipher": (sock.cipher() or ("",))[0],
            "sni": sock.server_hostname or "", "validation": "verified" if checked else "not checked"}


class GuardedAdapter(HTTPAdapter):
    """A requests HTTPAdapter whose connections refuse forbidden peer addresses.

    Takes ``allow`` (networks from ``parse_allow_list``). A refused connection raises
    RefusedAddress from inside requests (wrapped by requests as ConnectionError; the fetcher
    unwraps it). Proxies are not supported: a proxy would hide the real peer.
    """

    def __init__(self, allow: tuple[Network, ...] = (), **kwargs):
        self._allow = allow
        super().__init__(**kwargs)

    def init_poolmanager(self, *args, **kwargs):
        super().init_poolmanager(*args, **kwargs)
        http_conn = _guarded(HTTPConnection, self._allow)
        https_conn = _guarded(HTTPSConnection, self._allow)
        self.poolmanager.pool_classes_by_scheme = {
            "http": type("GuardedHTTPPool", (HTTPConnectionPool,), {"ConnectionCls": http_conn}),
            "https": type("GuardedHTTPSPool", (HTTPSConnectionPool,), {"ConnectionCls": https_conn}),
        }
