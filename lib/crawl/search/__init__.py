"""Search-engine discovery, Django-free: query phrases of a work (phrases), search providers
(providers)."""
