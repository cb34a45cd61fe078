"""Web archives (Django-free): reading WARC and WET files record by record with their byte
offsets (``reader``), opening local files and HTTP(S) byte ranges through the SSRF guard
(``sources``), the text of a record as the crawl pipeline would take it (``text``) and the
pywb/CDX index server API that Common Crawl's index speaks (``cdx``)."""
