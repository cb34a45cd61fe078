"""Every Celery task the product queues by name is a task the worker registers: a misspelt name
in ``queue_after_commit``, ``send_task`` or the beat schedule would be queued and never run.
Names are read from the source (string literals, module constants, both branches of a
conditional), not from a list kept by hand."""

from __future__ import annotations

import ast
from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("crawler", "dashboard", "tracker")
QUEUEING = {"queue_after_commit", "send_task"}


def _strings(node: ast.expr, constants: dict[str, str]) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Name) and node.id in constants:
        return [constants[node.id]]
    if isinstance(node, ast.IfExp):
        return _strings(node.body, constants) + _strings(node.orelse, constants)
    return []


def _queued_names() -> dict[str, str]:
    """{task name: "file:line"} of every name queued in the product's source."""
    found = {}
    for folder in PRODUCT:
        for path in (ROOT / folder).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            constants = {target.id: node.value.value for node in tree.body
                         if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                         and isinstance(node.value.value, str)
                         for target in node.targets if isinstance(target, ast.Name)}
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and node.args and (
                        getattr(node.func, "attr", None) in QUEUEING
                        or getattr(node.func, "id", None) in QUEUEING):
                    for name in _strings(node.args[0], constants):
                        found[name] = f"{path.relative_to(ROOT)}:{node.lineno}"
    return found


def test_every_task_queued_by_name_is_registered():
    from tracker.celery import app

    app.loader.import_default_modules()
    registered = set(app.tasks)
    queued = _queued_names()
    queued |= {entry["task"]: "settings CELERY_BEAT_SCHEDULE"
               for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert len(queued) >= 15  # the reader found the calls
    assert {name: where for name, where in queued.items() if name not in registered} == {}
