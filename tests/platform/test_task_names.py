"""Every Celery task the product queues is a task the worker registers: a misspelt name in
``queue_after_commit``, ``send_task`` or the beat schedule, or ``apply_async`` / ``delay`` on a
task defined in a module the worker never imports, would be queued and never run.

What is queued is read from the source, not from a list kept by hand: the names given to
``queue_after_commit``, ``send_task`` and the functions that pass a parameter of theirs on to
them (string literals, constants and dicts of names of the module, both branches of a
conditional, a local variable's assignment), and the task objects whose ``apply_async`` or
``delay`` is called. A queueing call the reader cannot follow fails the test too, so that a new
way of naming a task cannot slip past it. The registered tasks are those of a fresh process
that starts Django and loads the task modules as a worker does."""

from __future__ import annotations

import ast
import functools
import importlib
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("tracker", "dashboard", "crawler", "core", "lib")
#: Functions that queue a task by the name in this argument: (position, keyword).
QUEUEING = {"queue_after_commit": (0, "task_name"), "send_task": (0, "name")}
#: Methods that queue the task object they are called on.
BY_OBJECT = {"apply_async", "delay"}
_REGISTERED = ("import django; django.setup(); from tracker.celery import app; "
               "app.loader.import_default_modules(); print('\\n'.join(sorted(app.tasks)))")


@dataclass
class Found:
    """What the reader found: task names and task objects queued ("file:line" of each), and the
    queueing calls it could not follow."""

    names: dict[str, str] = field(default_factory=dict)
    objects: dict[str, str] = field(default_factory=dict)
    unread: list[str] = field(default_factory=list)


def _modules():
    """(path, module name, tree) of each product module, migrations left out."""
    for folder in PRODUCT:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            yield path, module.removesuffix(".__init__"), ast.parse(path.read_text("utf-8"))


def _functions(tree: ast.Module):
    """(function or None for module level, call) of every call in ``tree``."""
    parents: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            up = parents.get(node)
            while up is not None and not isinstance(up, ast.FunctionDef | ast.AsyncFunctionDef):
                up = parents.get(up)
            yield up, node


def _called(call: ast.Call) -> str | None:
    return getattr(call.func, "attr", None) or getattr(call.func, "id", None)


def _argument(call: ast.Call, position: int, keyword: str) -> ast.expr | None:
    if len(call.args) > position:
        return call.args[position]
    return next((k.value for k in call.keywords if k.arg == keyword), None)


def _default(function, name: str) -> ast.expr | None:
    """The default value of ``function``'s parameter ``name``, None when it has none."""
    args = function.args
    defaults = dict(zip([a.arg for a in args.args][-len(args.defaults):], args.defaults,
                        strict=True)) if args.defaults else {}
    defaults |= {a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d}
    return defaults.get(name)


def _assigned(function, name: str) -> list[ast.expr]:
    """The values assigned to local ``name`` in ``function``."""
    return [node.value for node in ast.walk(function) if isinstance(node, ast.Assign)
            for target in node.targets if isinstance(target, ast.Name) and target.id == name]


def _values(node: ast.expr, module: str, function) -> list | None:
    """The Python values ``node`` may have (module attributes imported at run time), or None
    when the reader cannot tell."""
    if isinstance(node, ast.Constant):
        return [node.value]
    if isinstance(node, ast.IfExp):
        body, orelse = _values(node.body, module, function), _values(node.orelse, module, function)
        return None if body is None or orelse is None else body + orelse
    if isinstance(node, ast.Subscript):  # a dict of names, by any key
        mappings = _values(node.value, module, function)
        if mappings is None or not all(isinstance(m, dict) for m in mappings):
            return None
        return [value for mapping in mappings for value in mapping.values()]
    if isinstance(node, ast.Attribute):
        bases = _values(node.value, module, function)
        if bases is None or not all(hasattr(b, node.attr) for b in bases):
            return None
        return [getattr(b, node.attr) for b in bases]
    if isinstance(node, ast.Name):
        if function is not None and (local := _assigned(function, node.id)):
            values = [_values(value, module, function) for value in local]
            return None if None in values else [v for vs in values for v in vs]
        imported = importlib.import_module(module)
        if hasattr(imported, node.id):
            return [getattr(imported, node.id)]
        if function is not None:  # imported inside the function
            for imp in ast.walk(function):
                if isinstance(imp, ast.ImportFrom) and any(
                        (alias.asname or alias.name) == node.id for alias in imp.names):
                    alias = next(a for a in imp.names if (a.asname or a.name) == node.id)
                    source = importlib.import_module("." * imp.level + (imp.module or ""),
                                                     imported.__package__)
                    if not hasattr(source, alias.name):  # a submodule
                        importlib.import_module(f"{source.__name__}.{alias.name}")
                    return [getattr(source, alias.name)]
    return None


def _is_parameter(node: ast.expr, function) -> int | None:
    if function is None or not isinstance(node, ast.Name):
        return None
    names = [a.arg for a in function.args.args]
    if node.id in names:
        return names.index(node.id)
    return -1 if node.id in [a.arg for a in function.args.kwonlyargs] else None


@functools.cache  # both tests read the same source; the reading is most of their time
def _read() -> Found:
    modules = list(_modules())
    queueing = dict(QUEUEING)
    # the functions that pass a parameter on to a queueing call: name -> (module, def)
    forwarders: dict[str, tuple[str, ast.FunctionDef]] = {}
    changed = True
    while changed:
        changed = False
        for _path, module, tree in modules:
            for function, call in _functions(tree):
                if _called(call) not in queueing:
                    continue
                arg = _argument(call, *queueing[_called(call)])
                index = None if arg is None else _is_parameter(arg, function)
                if index is not None and function.name not in queueing:
                    queueing[function.name] = (index, arg.id)
                    forwarders[function.name] = (module, function)
                    changed = True
    found = Found()
    for path, module, tree in modules:
        for function, call in _functions(tree):
            where = f"{path.relative_to(ROOT)}:{call.lineno}"
            called = _called(call)
            if called in queueing:
                arg = _argument(call, *queueing[called])
                if arg is not None and _is_parameter(arg, function) is not None \
                        and function.name in queueing:
                    continue  # passes its caller's name on: read at the callers
                values = None
                if arg is not None:
                    values = _values(arg, module, function)
                elif called in forwarders:  # the forwarder's default
                    home, forwarder = forwarders[called]
                    default = _default(forwarder, queueing[called][1])
                    values = None if default is None else _values(default, home, None)
                if values is None or not all(isinstance(v, str) for v in values):
                    found.unread.append(where)
                    continue
                found.names.update({v: where for v in values})
            elif called in BY_OBJECT and isinstance(call.func, ast.Attribute):
                values = _values(call.func.value, module, function)
                if values is None or not all(isinstance(getattr(v, "name", None), str)
                                             for v in values):
                    found.unread.append(where)
                    continue
                found.objects.update({v.name: where for v in values})
    return found


def _registered() -> set[str]:
    """The task names a worker registers (a fresh process: Django set up, task modules
    loaded as the worker loads them)."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tracker.settings.test"}
    out = subprocess.run([sys.executable, "-c", _REGISTERED], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True, timeout=120).stdout
    return set(out.split())


def test_every_task_queued_is_registered():
    found = _read()
    registered = _registered()
    queued = {**found.names, **found.objects}
    queued |= {entry["task"]: "settings CELERY_BEAT_SCHEDULE"
               for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert found.unread == []
    assert len(found.names) >= 15 and len(found.objects) >= 8  # the reader found the calls
    assert {name: where for name, where in queued.items() if name not in registered} == {}


def test_the_reader_follows_forwarders_and_task_objects():
    """The reader finds a name passed through a forwarding function and a dict of names (the
    import jobs' TASKS), and a task object chosen by a conditional (enqueue_url)."""
    found = _read()
    assert found.names["tracker.core.tasks.import_archive"].startswith("core/")
    assert found.names["tracker.core.tasks.read_upload"].startswith("core/")
    assert {"crawler.crawl_url", "crawler.render_url"} <= found.objects.keys()
    assert found.names["crawler.find_contacts"].startswith("crawler/")  # a default argument
