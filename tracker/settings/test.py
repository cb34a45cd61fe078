"""Settings of the test suite (pyproject.toml's DJANGO_SETTINGS_MODULE): the production
settings with fast password hashing. The servers, data folder and Celery broker are pointed at
the session's own by tests/conftest.py once they start."""

from .base import *  # noqa: F403

# MD5 hashes: PBKDF2 costs about 0.8 s per login or new user on the 2-core machine, and what the
# tests check (lockout counting, scoping) does not depend on the hash.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# No request leaves the machine in a test: RDAP lookups go to a closed loopback port (refused at
# once) unless a test points them at its own loopback RDAP server.
RDAP_BOOTSTRAP_URL = env.str("TRACKER_RDAP_BOOTSTRAP_URL", default="http://127.0.0.1:9/")  # noqa: F405
