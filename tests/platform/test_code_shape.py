"""The shape of the product's Python, as docs/development.md asks it: no function longer than
60 lines (a reader holds it at once; split longer ones into named steps), and an import inside
a function only with a comment that says why it is not at the top (start-up cost, an optional
package, the app registry, a real circle)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("tracker", "dashboard", "crawler", "core", "lib", "fingerprint")
MAX_FUNCTION_LINES = 60


def _trees(folders):
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "migrations" not in path.parts:
                source = path.read_text(encoding="utf-8")
                yield path.relative_to(ROOT).as_posix(), source, ast.parse(source)


def _functions(tree):
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def test_no_function_is_longer_than_60_lines():
    long = {f"{path}:{fn.lineno} {fn.name}": fn.end_lineno - fn.lineno + 1
            for path, _, tree in _trees(PRODUCT) for fn in _functions(tree)
            if fn.end_lineno - fn.lineno + 1 > MAX_FUNCTION_LINES}
    assert long == {}


def test_imports_inside_functions_say_why():
    """The reason is a comment on the import's line or on the line above its group (imports
    and blank lines in a row)."""
    unexplained = []
    for path, source, tree in _trees(PRODUCT):
        lines = source.splitlines()
        for fn in _functions(tree):
            imports = [n for n in ast.walk(fn) if isinstance(n, ast.Import | ast.ImportFrom)]
            grouped = {line for n in imports for line in range(n.lineno, n.end_lineno + 1)}
            for node in imports:
                above = node.lineno - 1
                while above in grouped or not lines[above - 1].strip():
                    above -= 1
                if "#" not in lines[node.lineno - 1] and not lines[above - 1].strip().startswith("#"):
                    unexplained.append(f"{path}:{node.lineno}")
    assert unexplained == []
