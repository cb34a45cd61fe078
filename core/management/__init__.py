"""Management commands (`.venv/bin/python manage.py --help` lists them)."""
