"""``python -m fingerprint``: see :mod:`fingerprint.cli`."""

import os
import sys

# The engine makes no BLAS call; NumPy's OpenBLAS would still start a thread per core at import,
# and their start-up spinning cost about 5% of a 20,000-page query's CPU time (measured).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from fingerprint.cli import main  # noqa: E402 (after the environment NumPy reads at import)

sys.exit(main())
