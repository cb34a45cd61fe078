"""``python -m fingerprint``: see :mod:`fingerprint.cli`."""

import sys

from fingerprint.cli import main

sys.exit(main())
