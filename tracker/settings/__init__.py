"""The platform's Django settings (``DJANGO_SETTINGS_MODULE=tracker.settings``): every one is in
``base.py``, read from the environment; ``test.py`` holds the test suite's few overrides."""

from .base import *  # noqa: F403
