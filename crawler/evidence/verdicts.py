"""The verification of an evidence bundle with the platform's settings, and its verdict in words
of the active language: one wording for ``manage.py verify_evidence``, the API and the
evidence view.

Exit statuses of the command (``EXIT_STATUS``): 0 VALID, 1 FAIL, 3 UNVERIFIED (2 stays
argparse's usage error).
"""

from __future__ import annotations

from pathlib import Path
from typing import IO

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from crawler.evidence.trust import signature_check, timestamp_check, verify_limits
from lib.evidence.verify import FAIL, UNVERIFIED, VALID, Verdict, verify_bundle

EXIT_STATUS = {VALID: 0, FAIL: 1, UNVERIFIED: 3}

# BundleFailure.code -> what failed, in words of the reader's language
FAILURES = {
    "not_zip": gettext_lazy("not a readable ZIP file (truncated, or not a WACZ)"),
    "duplicate_entry": gettext_lazy("the ZIP holds two files of this name (a forgery: an unzip "
                                    "tool may show either)"),
    "unsafe_name": gettext_lazy("a file name that leads out of the bundle (absolute, .. or \\)"),
    "archive_bomb": gettext_lazy("refused as an archive bomb (it would expand beyond the "
                                 "limits)"),
    "missing": gettext_lazy("missing from the bundle"),
    "too_large": gettext_lazy("too large for a JSON file of a bundle"),
    "unreadable": gettext_lazy("cannot be read (damaged or truncated)"),
    "not_json": gettext_lazy("not valid JSON"),
    "bad_resources": gettext_lazy("its list of files is malformed"),
    "listed_twice": gettext_lazy("listed twice in datapackage.json"),
    "datapackage_digest": gettext_lazy("its SHA-256 differs from datapackage-digest.json"),
    "size_mismatch": gettext_lazy("its size differs from datapackage.json"),
    "hash_mismatch": gettext_lazy("its SHA-256 differs from datapackage.json (changed)"),
    "not_listed": gettext_lazy("not listed in datapackage.json (added)"),
    "no_warc": gettext_lazy("no WARC file: not an evidence bundle"),
    "bad_metadata": gettext_lazy("does not list the SHA-256 of the evidence files"),
    "metadata_mismatch": gettext_lazy("its SHA-256 differs from evidence/metadata.json"),
    "warc_record": gettext_lazy("a WARC record is damaged or its digest does not hold"),
    "timestamp": gettext_lazy("the timestamp does not hold for this bundle (altered, or taken "
                              "from another bundle)"),
    "signature": gettext_lazy("the operator's signature does not hold for this bundle"),
}
UNVERIFIED_WHY = {
    "no_timestamp": gettext_lazy("the digests hold, but the bundle carries no trusted "
                                 "timestamp: nothing proves when it was made"),
    "untrusted": gettext_lazy("the digests hold, but its timestamp chains to no trusted root"),
}


def verify_file(source: str | Path | IO[bytes], name: str = "",
                extra_certs: list[str] | tuple[str, ...] = (),
                extra_signers: list[str] | tuple[str, ...] = ()) -> Verdict:
    """``verify_bundle`` of ``source`` (a path or a seekable binary file) with the settings'
    trusted TSA roots plus ``extra_certs`` (PEM paths), the platform's signing certificate
    plus ``extra_signers`` (PEM paths) as trusted signers, and the upload limits. Raises
    OSError for a certificate file that cannot be read."""
    return verify_bundle(source, timestamp_check(extra_certs), name=name, limits=verify_limits(),
                         check_signature=signature_check(extra_signers, extra_certs))


def verdict_words(verdict: Verdict, name: str) -> str:
    """The verdict on the bundle ``name`` in one sentence of the active language: VALID with
    the timestamp, UNVERIFIED with why, FAIL naming the file and what is wrong."""
    if verdict.status == VALID:
        return _("VALID: %(name)s: every digest holds; %(timestamp)s.") % {
            "name": name, "timestamp": verdict.timestamp}
    if verdict.status == UNVERIFIED:
        return _("UNVERIFIED: %(name)s: %(why)s.") % {
            "name": name, "why": UNVERIFIED_WHY[verdict.unverified_code]}
    failure = verdict.failure
    assert failure is not None
    return _("FAIL: %(name)s: %(file)s: %(why)s.") % {
        "name": name, "file": failure.path, "why": FAILURES.get(failure.code, failure.reason)}
