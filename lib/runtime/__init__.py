"""Django-free runtime plumbing: the embedded servers (``embedded``), the process supervisor of
the Celery worker and beat (``supervisor``) and the retry backoff (``backoff``)."""
