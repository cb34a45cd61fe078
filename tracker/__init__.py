"""The Django project of the copyright-tracking platform (settings, URLs, Celery app, core app)."""

from .celery import app as celery_app

__all__ = ["celery_app"]
