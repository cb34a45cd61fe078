"""Crawler configuration: CrawlConfig.from_mapping, the Django side's settings.CRAWLER read from
the CRAWLER_<NAME> environment variables, and errors that name the bad setting."""

import json
import os
import subprocess
import sys

import pytest
from django.conf import settings

from crawler.scans import crawl_config
from lib.crawl.config import CrawlConfig


def test_values_from_a_mapping_are_converted_to_the_field_types():
    config = CrawlConfig.from_mapping({"MAX_BODY_BYTES": "1000", "READ_TIMEOUT": 3,
                                       "ALLOW_ADDRESSES": "127.0.0.1, 10.0.0.0/8",
                                       "CONTACT_URL": "https://tracker.example.cn/bot"})
    assert config.max_body_bytes == 1000 and config.read_timeout == 3.0
    assert config.allow_addresses == ("127.0.0.1", "10.0.0.0/8")
    assert config.user_agent == "CopyrightTrackerBot/0.1 (+https://tracker.example.cn/bot)"
    assert config.max_redirects == CrawlConfig().max_redirects  # not named: the default


def test_bad_value_or_unknown_name_is_refused_with_its_name():
    with pytest.raises(ValueError, match="MAX_RETRIES"):
        CrawlConfig.from_mapping({"MAX_RETRIES": "many"})
    with pytest.raises(ValueError, match="MAX_BODY_BYTE\\b"):
        CrawlConfig.from_mapping({"MAX_BODY_BYTE": "10"})  # a typo is not silently ignored


def test_django_side_builds_the_config_from_settings(settings):
    settings.CRAWLER = {"READ_TIMEOUT": "3", "MAX_REDIRECTS": "1"}
    config = crawl_config()
    assert (config.read_timeout, config.max_redirects) == (3.0, 1)


def test_settings_read_crawler_environment_variables(tmp_path):
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tracker.settings",
           "TRACKER_VAR_DIR": str(tmp_path), "CRAWLER_MAX_BODY_BYTES": "4096"}
    code = "from django.conf import settings; import json; print(json.dumps(settings.CRAWLER))"
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=settings.BASE_DIR,
                         capture_output=True, text=True, check=True).stdout
    assert json.loads(out)["MAX_BODY_BYTES"] == "4096"
