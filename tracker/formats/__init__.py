"""Date and time formats of the dashboard, the same in both languages (``FORMAT_MODULE_PATH``):
"2026-11-25 11:54", short enough for list columns and unambiguous in zh-hans and English."""
