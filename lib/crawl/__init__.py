"""The Django-free crawl library: fetch, robots.txt, politeness, frontier, pipeline, rendering,
canonical URLs, the SSRF guard and the crawl outcomes. It imports neither Django nor the apps."""
