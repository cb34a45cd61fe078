"""Parts of the evidence report a court expert reads page by page: the capture's screenshot cut
into page-high tiles, and the verification section (who signed, which certificates, which
digests, and the commands that check them without the platform)."""

from __future__ import annotations

import base64
import hashlib
import io
import zipfile
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding
from django.conf import settings
from PIL import Image

from crawler.evidence.capture import SCREENSHOT
from crawler.evidence.trust import signing_identity

Image.MAX_IMAGE_PIXELS = None  # a full-page screenshot is tall; its height is capped at capture


def screenshot_tiles(capture) -> dict:
    """The capture's screenshot (PNG in its WACZ) cut into tiles of
    settings.REPORT_TILE_HEIGHT_PX pixels, each overlapping the one before by
    settings.REPORT_TILE_OVERLAP_PX (a line cut at a tile's edge is whole in one of them), at
    most settings.REPORT_MAX_TILES.

    Returns:
        ``{"tiles": [data: URI of a PNG], "height": the picture's height (px), "shown": the
        pixels the tiles cover (less than ``height`` when cut at the tile cap)}``; no tiles
        without a capture or a screenshot.
    """
    empty = {"tiles": [], "height": 0, "shown": 0}
    if capture is None:
        return empty
    with capture.bundle.open("rb") as handle, zipfile.ZipFile(handle) as wacz:
        if SCREENSHOT not in wacz.namelist():
            return empty
        picture = Image.open(io.BytesIO(wacz.read(SCREENSHOT)))
        picture.load()
    step = settings.REPORT_TILE_HEIGHT_PX - settings.REPORT_TILE_OVERLAP_PX
    tiles, top = [], 0
    while top < picture.height and len(tiles) < settings.REPORT_MAX_TILES:
        bottom = min(top + settings.REPORT_TILE_HEIGHT_PX, picture.height)
        out = io.BytesIO()
        picture.crop((0, top, picture.width, bottom)).save(out, "PNG", optimize=True)
        tiles.append("data:image/png;base64," + base64.b64encode(out.getvalue()).decode("ascii"))
        shown, top = bottom, top + step
    return {"tiles": tiles, "height": picture.height, "shown": shown if tiles else 0}


def verification(capture) -> dict:
    """What an examiner checks the report and its bundle with: the signer (the subject of the
    platform's signing certificate) and that certificate's SHA-256 fingerprint, each trusted
    TSA root (subject, SHA-256 fingerprint, from settings.TSA_TRUSTED_CERTS), and the bundle's
    and datapackage.json's SHA-256 (``capture``'s, or "" without one). Raises SigningError
    when the signing certificate cannot be read or made."""
    signer = x509.load_pem_x509_certificate(signing_identity().cert_path.read_bytes())
    roots = []
    for path in settings.TSA_TRUSTED_CERTS:
        try:
            root = x509.load_pem_x509_certificate(Path(path).read_bytes())
        except (OSError, ValueError):
            continue  # an unreadable root is reported by the verifier, not here
        roots.append({"subject": root.subject.rfc4514_string(), "sha256": _fingerprint(root)})
    return {"signer": signer.subject.rfc4514_string(), "signer_sha256": _fingerprint(signer),
            "tsa_roots": roots,
            "bundle_sha256": capture.bundle_sha256 if capture else "",
            "datapackage_sha256": capture.datapackage_sha256 if capture else ""}


def _fingerprint(certificate: x509.Certificate) -> str:
    """SHA-256 of the certificate's DER bytes, hex in colon-separated pairs (as openssl shows)."""
    digest = hashlib.sha256(certificate.public_bytes(Encoding.DER)).hexdigest().upper()
    return ":".join(digest[i:i + 2] for i in range(0, len(digest), 2))
