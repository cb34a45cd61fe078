"""ReplayWeb.page served by the platform itself, under ``/replay/``: its front end ``ui.js`` and
its service worker ``sw.js`` (vendored from the npm package, dashboard/static/dashboard/vendor/
replaywebpage/SOURCE.txt), and the page the replay's frame opens before the worker controls it.

A service worker controls the paths under the folder its script is served from: ``sw.js`` is
answered at ``/replay/sw.js`` so that its scope, ``/replay/``, covers the frame the
``<replay-web-page replaybase="/replay/">`` element opens there (``/replay/?source=...``); the
worker's own index page loads ``./ui.js``, hence ``/replay/ui.js``. Nothing is fetched from
another host.
"""

from __future__ import annotations

from csp.constants import SELF
from csp.decorators import csp_replace
from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import FileResponse, Http404, HttpResponse
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.http import require_safe

VENDOR = "dashboard/vendor/replaywebpage/"
ASSETS = ("ui.js", "sw.js")
UI_URL = "/replay/ui.js"
REPLAY_BASE = "/replay/"


@require_safe
def replay_asset_view(request, name: str) -> FileResponse:
    """GET ``/replay/<name>``: ``ui.js`` or ``sw.js`` as JavaScript, cached
    settings.REPLAY_ASSET_MAX_AGE_SECONDS; 404 for any other name."""
    path = finders.find(VENDOR + name) if name in ASSETS else None
    if not path:
        raise Http404(name)
    handle = open(path, "rb")  # noqa: SIM115 - FileResponse closes it once sent
    response = FileResponse(handle, content_type="text/javascript; charset=utf-8")
    response["Cache-Control"] = f"public, max-age={settings.REPLAY_ASSET_MAX_AGE_SECONDS}"
    return response


@require_safe
@xframe_options_sameorigin
@csp_replace({"frame-ancestors": [SELF]})
def replay_frame_view(request) -> HttpResponse:
    """GET ``/replay/``: the replay frame's page as ReplayWeb.page's worker serves it (its
    front end and its app element), answered by the server only until the worker controls the
    frame, which then reloads it; it may be framed by this site's pages only."""
    return HttpResponse(f'<!doctype html><html><head><meta charset="utf-8">'
                        f'<script src="{UI_URL}"></script></head>'
                        f'<body><replay-app-main></replay-app-main></body></html>',
                        content_type="text/html; charset=utf-8")
