"""Django-free runtime plumbing: the embedded servers (``embedded``), the process supervisor of
the Celery worker and beat (``supervisor``), the retry backoff (``backoff``) and HTTP servers
served from a thread (``serving``)."""
