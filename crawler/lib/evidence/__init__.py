"""Evidence capture without Django: WARC records of an HTTP exchange, the WACZ bundle and its
verification, RFC 3161 time-stamps and PDF signing."""
