"""Commands written in the documentation work as written in a fresh clone's shell, which has no
``python`` with the project's packages: they name the virtualenv's interpreter."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The pages that document commands (the top-level README.md is not among them).
PAGES = sorted([*ROOT.glob("docs/**/*.md"), *ROOT.glob("*/README.md")])
BARE = re.compile(r"(?<![\w/.])python3? (manage\.py|-m \w)")


def test_documented_commands_name_the_virtualenvs_python():
    bare = [f"{page.relative_to(ROOT)}:{number}: {line.strip()}"
            for page in PAGES for number, line in enumerate(page.read_text().splitlines(), 1)
            if line.startswith((".venv", "python", "$ python", "    python")) and BARE.search(line)]
    assert PAGES and not bare, "\n".join(bare)
