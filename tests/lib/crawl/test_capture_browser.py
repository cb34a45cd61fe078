"""The capture browser (``Renderer.snapshot``) against pages that fight it: dialogs and
``window.print()``, an endless script, and requests that must not leave (POSTs, navigations
away). Real headless Chromium and a loopback site; each case must end with a picture or a
"render timeout" at the configured time, never with a crashed browser."""

from __future__ import annotations

import dataclasses
import time

import pytest

from lib.crawl.outcomes import Outcome
from lib.crawl.render import Renderer
from tests.browsers import needs_chromium

BODY = "<h1>盗版书站</h1><p>{text}</p>"


def _shoot(config, url: str, html: str, timeout: float = 10):
    renderer = Renderer(config)
    try:
        return renderer.snapshot(url, html, width=800, max_height=3000, timeout=timeout)
    finally:
        renderer.close()


@needs_chromium
@pytest.mark.parametrize("script", [
    "window.print();",
    "alert('中奖了');",
    "confirm('继续？');",
    "prompt('输入', 'x');",
    "window.onbeforeunload = function(e){ e.preventDefault(); return '离开？'; };"
    "window.print(); alert('a');",
])
def test_a_page_with_dialogs_or_print_ends_with_a_picture(config, site, script):
    html = "<html><body>" + BODY.format(text="第一回") + f"<script>{script}</script></body></html>"
    shot = _shoot(config, site.url("/dialog.html"), html)
    assert shot.outcome is Outcome.OK, shot.reason
    assert shot.png.startswith(b"\x89PNG") and shot.pdf.startswith(b"%PDF")


@needs_chromium
@pytest.mark.parametrize("script", [
    "for(;;){}",  # before the load event
    "window.addEventListener('load', function () { for(;;){} });",  # after it
    "document.addEventListener('DOMContentLoaded', function () { for(;;){} });",
])
def test_an_endless_script_is_a_render_timeout_at_the_configured_time(config, site, script):
    config = dataclasses.replace(config, render_settle_seconds=1.0)
    html = "<html><body>" + BODY.format(text="第一回") + f"<script>{script}</script></body></html>"
    started = time.monotonic()
    shot = _shoot(config, site.url("/busy.html"), html, timeout=5)
    took = time.monotonic() - started
    assert shot.outcome is Outcome.RENDER_TIMEOUT, (shot.outcome, shot.reason)
    assert took < 5 + 1 + 10, took  # the deadline, the settle time, the browser's start and stop


@needs_chromium
def test_the_page_s_posts_and_navigations_away_are_not_sent_but_listed(config, site):
    site.route("/style.css", site.Reply(200, {"Content-Type": "text/css"}, b"h1{color:red}"))
    html = ("<html><head><link rel='stylesheet' href='/style.css'></head><body>"
            + BODY.format(text="第一回")
            + "<form id='f' method='post' action='/collect'><input name='who' value='x'></form>"
            "<script>fetch('/beacon', {method: 'POST', body: 'secret=1'});"
            "navigator.sendBeacon('/beacon2', 'secret=2');"
            "setTimeout(function(){ location.href = '/elsewhere.html'; }, 100);</script>"
            "</body></html>")
    shot = _shoot(config, site.url("/page.html"), html)
    assert shot.outcome is Outcome.OK, shot.reason
    sent = [path for path, _ in site.requests]
    assert "/style.css" in sent
    assert not {"/beacon", "/beacon2", "/collect", "/elsewhere.html"} & set(sent), sent
    refused = dict(shot.refused)
    assert refused[site.url("/beacon")] == "blocked: POST"
    assert refused[site.url("/beacon2")] == "blocked: POST"
    assert refused[site.url("/elsewhere.html")] == "blocked: navigation"
