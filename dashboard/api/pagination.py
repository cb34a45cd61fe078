"""Page-number pagination of API lists: settings.API_PAGE_SIZE rows, ``page_size`` up to
settings.API_PAGE_SIZE_MAX."""

from __future__ import annotations

from django.conf import settings
from rest_framework.pagination import PageNumberPagination


class Pagination(PageNumberPagination):
    """``?page=N&page_size=M``; answers ``{count, next, previous, results}``."""

    page_size = settings.API_PAGE_SIZE
    page_size_query_param = "page_size"
    max_page_size = settings.API_PAGE_SIZE_MAX
