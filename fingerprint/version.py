"""FINGERPRINT_VERSION: which letters, keys and key parameters made a set of fingerprints.

Its own module, below both the engine and the index packages, so that an index can name the
version it holds without importing the engine.
"""

from __future__ import annotations

import hashlib
import json

from fingerprint.config import EngineConfig
from fingerprint.letters import default_table

SCHEME_VERSION = "fp3"  # bump when the key computation changes in code (fp3: English words
# in the rewrite keys)


def _scheme_digest(config: EngineConfig) -> str:
    raw = json.dumps(config.scheme(), sort_keys=True).encode()
    return hashlib.sha1(raw).hexdigest()[:6]


#: Letter-table version, scheme version and a digest of the default key parameters, e.g.
#: "lt1-fp3-3fa2c1": any change to the table, the code or the defaults changes it.
FINGERPRINT_VERSION = f"{default_table().version}-{SCHEME_VERSION}-{_scheme_digest(EngineConfig())}"
