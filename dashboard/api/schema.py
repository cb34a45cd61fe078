"""The API's own words on its documentation pages (Swagger UI, Redoc) in the reader's language:
the schema's title and introduction, with links between the two pages and to the dashboard,
and the pages' title. The rest of those pages is the libraries' interface (English)."""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy


def page_title():
    """The documentation pages' title (settings.SPECTACULAR_SETTINGS["TITLE"]), lazily in the
    request's language."""
    return gettext_lazy(settings.SPECTACULAR_SETTINGS["TITLE"])


def translated_info(result: dict, generator, request, public) -> dict:
    """drf-spectacular postprocessing hook: ``info.title`` and ``info.description`` of the
    schema ``result`` (dict) in the active language (the request's), the description followed
    by Markdown links to Swagger UI, Redoc and the dashboard. Returns ``result``."""
    info = result["info"]
    info["title"] = gettext(settings.SPECTACULAR_SETTINGS["TITLE"])
    links = " · ".join(f"[{label}]({url})" for label, url in (
        (gettext("Swagger UI: try the operations"), reverse("api:docs")),
        (gettext("Redoc: read the reference"), reverse("api:redoc")),
        (gettext("Back to the dashboard"), reverse("admin:index"))))
    info["description"] = f"{gettext(settings.SPECTACULAR_SETTINGS['DESCRIPTION'])}\n\n{links}"
    return result
