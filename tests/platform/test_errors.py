"""Errors: one base class per package, and "storage unavailable" means MongoDB or Redis only."""

from __future__ import annotations

import pymongo.errors
import redis.exceptions

from core.connections import storage_errors
from core.errors import ActionError, CoreError, StorageUnavailable
from core.models import AuditTrailError
from crawler.sites import SiteNotFound
from dashboard.errors import DashboardError
from dashboard.highlight import SpanError
from dashboard.pdf import PdfUnavailableError
from fingerprint.index import IndexUnavailableError
from fingerprint.store import StoreUnavailableError
from lib.crawl.canonical import InvalidURL
from lib.crawl.errors import CrawlerError
from lib.crawl.ssrf import RefusedAddress


def test_a_refused_address_is_not_storage_down():
    refused = RefusedAddress("intranet.example", "10.0.0.1", "private")
    assert not isinstance(refused, storage_errors())
    assert not isinstance(ConnectionRefusedError("remote site"), storage_errors())
    assert isinstance(refused, ConnectionError)  # urllib3 still reports a failed connection


def test_mongodb_redis_and_engine_outages_are_storage_down():
    for exc in (pymongo.errors.ServerSelectionTimeoutError("no mongod"),
                redis.exceptions.ConnectionError("no redis"),
                StoreUnavailableError("store"), IndexUnavailableError("index"),
                StorageUnavailable("core")):
        assert isinstance(exc, storage_errors()), exc


def test_each_package_has_one_base_exception():
    assert all(issubclass(cls, CrawlerError) for cls in (RefusedAddress, InvalidURL, SiteNotFound))
    assert all(issubclass(cls, DashboardError) for cls in (SpanError, PdfUnavailableError))
    assert all(issubclass(cls, CoreError) for cls in (
        StorageUnavailable, ActionError, AuditTrailError))


def _page_for(error: Exception, language: str):
    """What the dashboard's handler500 answers while ``error`` is being handled."""
    from django.test import RequestFactory

    from core.views import server_error

    request = RequestFactory().get("/", HTTP_ACCEPT_LANGUAGE=language)
    try:
        raise error
    except Exception:
        return server_error(request)


def test_a_server_down_is_a_503_page_in_the_users_language_and_a_bug_a_500():
    from django.db import OperationalError

    down = _page_for(pymongo.errors.ServerSelectionTimeoutError("no mongod"), "zh-hans")
    assert down.status_code == 503 and int(down["Retry-After"]) > 0
    assert "服务暂时不可用" in down.content.decode()
    down = _page_for(OperationalError("connection refused"), "en")
    assert down.status_code == 503 and "Service temporarily unavailable" in down.content.decode()
    bug = _page_for(ValueError("a bug"), "en")
    assert bug.status_code == 500 and "unavailable" not in bug.content.decode()


def test_the_api_answers_a_server_down_as_json_503_in_the_callers_language():
    """An API call that meets PostgreSQL, MongoDB or Redis down gets the API's JSON error
    (code "storage_unavailable", status 503, Retry-After), not the dashboard's HTML page; a
    bug is a JSON 500 "server_error"."""
    from django.db import OperationalError
    from django.utils import translation

    from dashboard.api.errors import exception_handler

    for error, language, words in (
            (OperationalError("connection refused"), "zh-hans", "无法连接"),
            (pymongo.errors.ServerSelectionTimeoutError("no mongod"), "en", "cannot reach")):
        with translation.override(language):
            response = exception_handler(error, {})
        assert response.status_code == 503 and int(response["Retry-After"]) > 0
        assert response.data["code"] == "storage_unavailable"
        assert words in response.data["message"], response.data
    bug = exception_handler(ValueError("a bug"), {})
    assert bug.status_code == 500 and bug.data["code"] == "server_error"
    assert "a bug" not in bug.data["message"]


def test_an_unreachable_redis_cluster_index_is_storage_down(settings):
    from core.connections import get_index_redis
    from lib.runtime.embedded import free_port

    settings.FINGERPRINT_INDEX_REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"
    settings.FINGERPRINT_INDEX_REDIS_CLUSTER = True
    settings.REDIS_CONNECT_TIMEOUT_SECONDS = 1
    try:
        get_index_redis()
    except storage_errors() as exc:
        assert "Redis Cluster" in str(exc)
    else:
        raise AssertionError("a Redis Cluster client on a closed port was made")


def test_mongodb_writes_ask_for_the_configured_write_concern(settings):
    from core.connections import get_mongo_db

    settings.MONGO_URL = "mongodb://127.0.0.1:1/?replicaSet=rs"  # no call is made
    settings.MONGO_WRITE_CONCERN, settings.MONGO_JOURNALED_WRITES = "majority", True
    assert get_mongo_db().client.write_concern.document == {"w": "majority", "j": True}
    settings.MONGO_WRITE_CONCERN = 2
    assert get_mongo_db().client.write_concern.document["w"] == 2
