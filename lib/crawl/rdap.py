"""The abuse contacts RDAP gives for a domain's registrar and for an IP address's network
(Django-free).

RDAP (RFC 9082 queries, RFC 9083 JSON answers) is found through the IANA bootstrap registry
(RFC 9224): ``dns.json`` maps top-level domains, ``ipv4.json`` / ``ipv6.json`` map address
blocks to the base URLs of the RDAP servers that answer for them. ``RdapClient`` reads the
bootstrap files from a base URL (IANA's, or a loopback one in tests and the demo), asks the
right server and reads the ``abuse`` entities of the answer (their jCard ``email`` properties,
RFC 7095). Faults are exceptions: ``RdapNotFound`` (404, no server for the name: final) and
``RdapRetryable`` (timeout, connection refused, 429 with its Retry-After, 5xx, an answer that
is not RDAP JSON: worth asking again later). Addresses are returned as the server wrote them;
the caller decides which are addresses anyone can write to.
"""

from __future__ import annotations

import ipaddress
import json
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from time import time
from urllib.parse import quote, urljoin

import requests

BOOTSTRAP_FILES = {"dns": "dns.json", "ipv4": "ipv4.json", "ipv6": "ipv6.json"}
#: How many bytes of an RDAP or bootstrap answer are read at most (IANA's dns.json: ~40 kB).
MAX_ANSWER_BYTES = 2_000_000
#: Redirects followed per request (RFC 7480 §5.2: a server may send the client elsewhere).
MAX_REDIRECTS = 3


class RdapError(Exception):
    """An RDAP lookup that gave no answer; ``str()`` says what and where, in English."""


class RdapNotFound(RdapError):
    """The server has no record (HTTP 404), or no RDAP server answers for the name: final."""


class RdapRetryable(RdapError):
    """Timeout, connection error, 429, 5xx or malformed JSON: ask again later.
    ``retry_after``: seconds the server asked to wait (429/503 Retry-After), or None."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True)
class AbuseContact:
    """One address of an RDAP ``abuse`` entity: ``address`` (str, unchecked), ``holder`` (the
    name of the registrar or network it belongs to, may be ""), ``url`` (the RDAP URL read)."""

    address: str
    holder: str
    url: str


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """Seconds of an HTTP ``Retry-After`` header (RFC 9110 §10.2.3: delay-seconds or an
    HTTP-date), or None when absent or unreadable; never negative."""
    if not value:
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():
        return float(value)
    try:
        moment = parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, moment - (time() if now is None else now))


def _vcard_values(entity: dict, name: str) -> list[str]:
    """The text values of property ``name`` of an entity's jCard (``vcardArray``)."""
    card = entity.get("vcardArray")
    if not (isinstance(card, list) and len(card) == 2 and isinstance(card[1], list)):
        return []
    return [str(prop[3]) for prop in card[1]
            if isinstance(prop, list) and len(prop) >= 4 and prop[0] == name
            and isinstance(prop[3], str)]


def abuse_addresses(answer: dict, url: str = "", parent_roles: tuple[str, ...] = ()
                    ) -> list[AbuseContact]:
    """The e-mail addresses of the ``abuse`` entities of an RDAP object (dict, RFC 9083 §5),
    nested entities included, in document order without repeats. For a domain only those
    under its ``registrar`` entity count when it has one (the registrar's abuse desk, as
    ICANN's RDAP profile places it); ``url``: the RDAP URL the answer came from."""
    found: list[AbuseContact] = []

    def walk(entity: dict, holder: str, under_registrar: bool) -> None:
        for child in entity.get("entities") or []:
            if not isinstance(child, dict):
                continue
            roles = [r for r in child.get("roles") or [] if isinstance(r, str)]
            name = (_vcard_values(child, "fn") or [holder])[0]
            registrar = under_registrar or "registrar" in roles
            if "abuse" in roles and (registrar or not has_registrar):
                for address in _vcard_values(child, "email"):
                    if address not in [c.address for c in found]:
                        found.append(AbuseContact(address, holder or name, url))
            walk(child, name, registrar)

    has_registrar = any("registrar" in (e.get("roles") or []) for e in answer.get("entities") or []
                        if isinstance(e, dict))
    walk(answer, str(answer.get("name") or answer.get("ldhName") or ""), False)
    return found


@dataclass
class Bootstrap:
    """Parsed IANA bootstrap files: ``dns`` (label -> base URLs), ``ip`` ([(network, base URLs)])."""

    dns: dict[str, list[str]] = field(default_factory=dict)
    ip: list[tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, list[str]]] = \
        field(default_factory=list)

    def add(self, kind: str, document: dict) -> None:
        """Add bootstrap file ``document`` of ``kind`` ("dns", "ipv4" or "ipv6"; RFC 9224 §3:
        ``{"services": [[[keys], [base URLs]], ...]}``). Raises RdapRetryable: not that shape."""
        try:
            for keys, urls in document["services"]:
                urls = [u if u.endswith("/") else u + "/" for u in urls if isinstance(u, str)]
                for key in keys:
                    if kind == "dns":
                        self.dns[key.lower().strip(".")] = urls
                    else:
                        self.ip.append((ipaddress.ip_network(key, strict=False), urls))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise RdapRetryable(f"bootstrap file {kind} is not RFC 9224 JSON: {exc}") from exc

    def for_domain(self, domain: str) -> list[str]:
        """Base URLs for ``domain``: the longest matching label suffix (RFC 9224 §4)."""
        labels = domain.lower().strip(".").split(".")
        for start in range(len(labels)):
            urls = self.dns.get(".".join(labels[start:]))
            if urls:
                return urls
        return []

    def for_ip(self, address: str) -> list[str]:
        """Base URLs for IP ``address``: the longest matching prefix (RFC 9224 §5)."""
        ip = ipaddress.ip_address(address)
        blocks = [(net, urls) for net, urls in self.ip if net.version == ip.version and ip in net]
        return max(blocks, key=lambda item: item[0].prefixlen)[1] if blocks else []


class RdapClient:
    """Asks RDAP servers found through the bootstrap files under ``bootstrap_base`` (str URL
    ending in "/"), each request timing out after ``timeout`` seconds; bootstrap files are
    read once per client."""

    def __init__(self, bootstrap_base: str, timeout: float, user_agent: str = "copyright-tracker"):
        self.bootstrap_base = bootstrap_base if bootstrap_base.endswith("/") else bootstrap_base + "/"
        self.timeout = timeout
        self.session = requests.Session()
        self.session.max_redirects = MAX_REDIRECTS
        self.session.headers.update({"Accept": "application/rdap+json, application/json",
                                     "User-Agent": user_agent})
        self._bootstrap: Bootstrap | None = None
        self._kinds: set[str] = set()

    def get_json(self, url: str) -> dict:
        """The JSON object at ``url``. Raises RdapNotFound (404), RdapRetryable (see module)."""
        try:
            with self.session.get(url, timeout=self.timeout, stream=True) as response:
                body = response.raw.read(MAX_ANSWER_BYTES + 1, decode_content=True)
                status, headers = response.status_code, response.headers
        except requests.Timeout as exc:
            raise RdapRetryable(f"{url}: no answer within {self.timeout:g} s") from exc
        except requests.RequestException as exc:
            raise RdapRetryable(f"{url}: {type(exc).__name__}: {exc}") from exc
        if status == 404:
            raise RdapNotFound(f"{url}: 404, no such record")
        if status == 429 or status >= 500:
            raise RdapRetryable(f"{url}: HTTP {status}",
                                retry_after_seconds(headers.get("Retry-After")))
        if status != 200:
            raise RdapNotFound(f"{url}: HTTP {status}")
        if len(body) > MAX_ANSWER_BYTES:
            raise RdapRetryable(f"{url}: answer over {MAX_ANSWER_BYTES} bytes")
        try:
            document = json.loads(body)
        except ValueError as exc:
            raise RdapRetryable(f"{url}: not JSON ({exc})") from exc
        if not isinstance(document, dict):
            raise RdapRetryable(f"{url}: not an RDAP object")
        return document

    def bootstrap(self, kind: str) -> Bootstrap:
        """The bootstrap data, file ``kind`` ("dns", "ipv4", "ipv6") read when not read yet."""
        if self._bootstrap is None:
            self._bootstrap = Bootstrap()
        if kind not in self._kinds:
            self._bootstrap.add(kind, self.get_json(urljoin(self.bootstrap_base,
                                                            BOOTSTRAP_FILES[kind])))
            self._kinds.add(kind)
        return self._bootstrap

    def domain_abuse(self, domain: str) -> list[AbuseContact]:
        """The registrar's abuse addresses of registered ``domain`` (RFC 9082 §3.1.3 query).
        Raises RdapNotFound (no server for its TLD, no record) or RdapRetryable."""
        servers = self.bootstrap("dns").for_domain(domain)
        if not servers:
            raise RdapNotFound(f"no RDAP server for {domain} in the bootstrap registry")
        url = urljoin(servers[0], "domain/" + quote(domain.lower().strip(".")))
        return abuse_addresses(self.get_json(url), url)

    def ip_abuse(self, address: str) -> list[AbuseContact]:
        """The abuse addresses of the network of IP ``address`` (its hosting provider, RFC
        9082 §3.1.1). Raises RdapNotFound or RdapRetryable as ``domain_abuse``."""
        kind = "ipv6" if ipaddress.ip_address(address).version == 6 else "ipv4"
        servers = self.bootstrap(kind).for_ip(address)
        if not servers:
            raise RdapNotFound(f"no RDAP server for {address} in the bootstrap registry")
        url = urljoin(servers[0], "ip/" + quote(address))
        return abuse_addresses(self.get_json(url), url)
