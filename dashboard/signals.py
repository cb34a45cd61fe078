"""The dashboard's hook on the crawler's takedown checks: a copy found back
(``crawler.takedown.takedown_changed`` with change "reopened", sent after commit) reopens the
notices that said it was removed (``dashboard.notice_actions.do_reopen_notices``)."""

from __future__ import annotations

from crawler.takedown import takedown_changed
from dashboard.notice_actions import do_reopen_notices


def _on_takedown_changed(sender, match, check, change, **kwargs):
    if change == "reopened":
        do_reopen_notices(match, check)


def connect() -> None:
    """Connect the receiver (called once from DashboardConfig.ready)."""
    takedown_changed.connect(_on_takedown_changed, dispatch_uid="dashboard.takedown_changed")
