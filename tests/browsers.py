"""The one place tests learn whether headless Chromium is here.

``needs_chromium`` marks a test that drives Chromium itself (the renderer, the capture browser):
it is skipped where Chromium is absent, with a reason CI's strict-skip check recognises, and it
is marked ``browser`` so that ``make test-fast`` leaves it out, as it leaves out the dashboard's
browser tests (which reach Chromium through the ``chromium`` fixture)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = Path(os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))


def needs_chromium(test):
    """Mark ``test`` as a browser test, skipped with a clear reason where Chromium is absent."""
    skip = pytest.mark.skipif(not CHROMIUM.exists(),
                              reason=f"browser test: no Chromium at {CHROMIUM} "
                                     "(apt-get install chromium, as .ci/run does)")
    return pytest.mark.browser(skip(test))
