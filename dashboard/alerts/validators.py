"""The check a webhook URL must pass when saved, shared by the admin form and the API."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from crawler.scans import crawl_config
from lib.crawl.ssrf import RefusedAddress, check_url, parse_allow_list


def check_webhook_url(url: str) -> str:
    """Return ``url`` (str) when the crawler's SSRF guard lets it be contacted (it is checked
    again before every delivery, since DNS answers change).

    Raises:
        ValidationError: code "refused_address", the guard's reason in the message.
    """
    try:
        check_url(url, parse_allow_list(crawl_config().allow_addresses))
    except RefusedAddress as exc:
        raise ValidationError(_("This address may not be contacted: %(reason)s"),
                              code="refused_address", params={"reason": exc.reason}) from exc
    return url
