"""The Django-free libraries under the apps, beside the engine (``fingerprint``): bytes to text
(``text``), the embedded servers and process supervision (``runtime``), fetching and crawling
(``crawl``) and evidence of matched pages (``evidence``). None imports Django, Celery or an app;
which may import which is stated in ``.importlinter`` and docs/architecture.md."""
