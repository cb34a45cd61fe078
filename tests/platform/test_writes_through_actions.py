"""The admin, the management commands and the API change state only through ``do_*`` actions:
no model write (save, delete, create, queryset update ...) in their source, outside the few
bookkeeping writes listed here with their reason. Needs no server."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APPS = ("crawler", "dashboard", "core")
CALLERS = sorted(path for pattern in ("**/admin.py", "**/*_admin.py", "**/management/commands/*.py",
                                      "dashboard/api/*.py", "dashboard/**/views.py",
                                      "dashboard/user_settings.py")
                 for path in ROOT.glob(pattern) if path.relative_to(ROOT).parts[0] in APPS)
#: Methods that write rows whatever they are called on.
WRITERS = {"save", "delete", "create", "get_or_create", "update_or_create", "bulk_create",
           "bulk_update"}
#: (file, function): writes that are bookkeeping, not a state change a person decides.
ALLOWED = {
    ("dashboard/api/auth.py", "authenticate"): "the token's last-use time",
}


def _queryset_update(call: ast.Call) -> bool:
    """``X.objects....update(...)`` or ``queryset....update(...)``: a queryset's bulk update."""
    node = call.func.value if isinstance(call.func, ast.Attribute) else None
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        node = node.func.value
    text = ast.unparse(node) if node is not None else ""
    return text.endswith("objects") or "queryset" in text


def _writes(path: Path) -> list[str]:
    """'function: call' of each model write in ``path`` outside a ``do_*`` function."""
    found = []

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = child.name if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else function
            if (isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute)
                    and not function.startswith("do_")
                    and (child.func.attr in WRITERS
                         or child.func.attr == "update" and _queryset_update(child))
                    and not ast.unparse(child.func.value).startswith(("super()", "self.fields",
                                                                      "form"))):
                found.append(f"{function}: {ast.unparse(child)[:80]}")
            visit(child, name)

    visit(ast.parse(path.read_text()), "<module>")
    return found


def test_callers_of_actions_write_no_model_themselves():
    assert len(CALLERS) > 10
    offenders = {}
    for path in CALLERS:
        relative = str(path.relative_to(ROOT))
        writes = [w for w in _writes(path) if (relative, w.split(":")[0]) not in ALLOWED]
        if writes:
            offenders[relative] = writes
    assert offenders == {}
