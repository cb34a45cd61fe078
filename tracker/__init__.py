"""The Django project of the copyright-tracking platform (settings, URLs, Celery app, core app)."""
