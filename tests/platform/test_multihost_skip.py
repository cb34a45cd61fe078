"""Where the multi-host deployment cannot be built, its tests are skipped with a reason a person
can act on: each case of ``unavailable_reason`` is reached here for real, in a user namespace
(unshare(1)) or without `ip` on the PATH, not by pretending."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ASK = "from tests.platform.multihost.network import unavailable_reason; print(unavailable_reason())"


def _reason(*prefix: str, env: dict | None = None) -> str:
    """``unavailable_reason()`` as a child process run by ``prefix`` sees it."""
    done = subprocess.run([*prefix, sys.executable, "-c", ASK], capture_output=True, text=True,
                          timeout=60, env=env, cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _user_namespaces() -> bool:
    return shutil.which("unshare") is not None and subprocess.run(
        ["unshare", "--user", "true"], capture_output=True).returncode == 0


needs_unshare = pytest.mark.skipif(not _user_namespaces(),
                                   reason="unshare --user is refused here")


@needs_unshare
def test_a_user_who_is_not_root_is_told_namespaces_need_root():
    assert _reason("unshare", "--user") == \
        "multi-host test: network namespaces need root (ip netns add)"


@needs_unshare
def test_root_of_a_container_that_may_not_make_namespaces_is_told_what_was_refused():
    if shutil.which("ip") is None:
        pytest.skip("no `ip` here: the case of the next test")
    reason = _reason("unshare", "--user", "--map-root-user")
    assert reason.startswith("multi-host test: `ip netns add` (netns) is refused here: "), reason
    assert len(reason) > len("multi-host test: `ip netns add` (netns) is refused here: ")


def test_a_machine_without_ip_is_told_which_package_to_install():
    if os.geteuid() != 0:
        pytest.skip("not root: the first case applies")
    env = {**os.environ, "PATH": "/nonexistent"}
    assert _reason(env=env) == "multi-host test: no `ip` command (apt-get install iproute2)"

