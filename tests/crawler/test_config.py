"""Crawler configuration (crawler.config): environment overrides, Django's CRAWLER setting, errors."""

import pytest

from crawler.config import CrawlConfig


def test_environment_and_django_setting(monkeypatch, settings):
    monkeypatch.setenv("CRAWLER_MAX_BODY_BYTES", "1000")
    monkeypatch.setenv("CRAWLER_ALLOW_ADDRESSES", "127.0.0.1, 10.0.0.0/8")
    monkeypatch.setenv("CRAWLER_CONTACT_URL", "https://tracker.example.cn/bot")
    settings.CRAWLER = {"READ_TIMEOUT": 3}
    config = CrawlConfig.load()
    assert config.max_body_bytes == 1000 and config.read_timeout == 3.0
    assert config.allow_addresses == ("127.0.0.1", "10.0.0.0/8")
    assert config.user_agent == "CopyrightTrackerBot/0.1 (+https://tracker.example.cn/bot)"


def test_bad_value_names_the_setting(monkeypatch):
    monkeypatch.setenv("CRAWLER_MAX_RETRIES", "many")
    with pytest.raises(ValueError, match="MAX_RETRIES"):
        CrawlConfig.load()
