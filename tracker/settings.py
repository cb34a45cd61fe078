"""Placeholder settings: replaced by the platform foundation (issue 3)."""
SECRET_KEY = "placeholder"
INSTALLED_APPS: list[str] = []
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}}
