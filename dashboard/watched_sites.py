"""The "Watched sites" page (``/sites/watched/``): every signed-in person, a rights holder's
users included, sees which target sites are crawled for copies of the registered works, when
each was last scanned (and how that scan ended) and when it is scanned next."""

from __future__ import annotations

from django.contrib import admin
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.translation import gettext as _

from crawler import schedule
from crawler.models import TargetSite
from lib.crawl.canonical import host_of
from lib.crawl.domains import registered_domain


def watched_sites_view(request):
    """GET: the enabled target sites, by name, with their last and next scan."""
    now = timezone.now()
    rows = []
    for site in (TargetSite.objects.filter(enabled=True).select_related("periodic_task__crontab")
                 .order_by("name")):
        last = site.scans.order_by("-started_at").first()
        host = host_of(site.start_urls[0]) if site.start_urls else ""
        rows.append({"site": site, "domain": registered_domain(host) if host else "",
                     "last": last, "next": schedule.next_run(site, now)})
    context = {**admin.site.each_context(request), "title": _("Watched sites"), "rows": rows}
    return TemplateResponse(request, "dashboard/watched_sites.html", context)
