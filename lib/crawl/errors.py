"""The crawler package's base exception: every error it raises on purpose derives from it.

Django-free, like the crawl library modules that raise these errors. Each subclass also derives
from the builtin class its callers expect (``ConnectionError`` for a refused address, so that
urllib3 reports it as a failed connection; ``ValueError`` for a bad URL; ``LookupError`` for an
unknown site). A refused address is never "storage unavailable": that is MongoDB or Redis only
(``core.connections.storage_errors``).
"""


class CrawlerError(Exception):
    """Base class of the errors the crawler raises."""
