"""Django-free crawl library."""
