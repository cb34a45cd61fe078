"""Hosts of a test deployment as Linux network namespaces on one bridge (ip-netns(8), veth(4)).

``Network`` makes a bridge in the test's own namespace, with the first address of a free
10.254.X.0/24 network (the test process, and the loopback site it serves, are reached there),
and one namespace per host joined to the bridge by a veth pair, each with its own address and
its own loopback. Every process started in a host (``Host.run``, ``Host.popen``) lives in its
namespace, so ``Host.kill_all`` ends every process of that host, as a lost machine would.

The names carry the creating process's id (``mh<pid>-<host>``); ``Network`` first removes the
namespaces and bridges left by a process that no longer runs (a test session killed before its
finalizers ran).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

PREFIX = "mh"
#: Seconds given to a command run in a host (a server start waits up to 30 s itself).
COMMAND_TIMEOUT = 120.0


def unavailable_reason() -> str | None:
    """Why this machine cannot run the deployment (str: not root, no `ip`, no netns), or None."""
    if os.geteuid() != 0:
        return "multi-host test: network namespaces need root (ip netns add)"
    if shutil.which("ip") is None:
        return "multi-host test: no `ip` command (apt-get install iproute2)"
    probe = f"{PREFIX}p{os.getpid()}"
    for kind, make, remove in (("netns", ["netns", "add", probe], ["netns", "del", probe]),
                               ("bridge", ["link", "add", probe, "type", "bridge"],
                                ["link", "del", probe])):
        made = _ip(*make, check=False)
        if made.returncode != 0:
            return f"multi-host test: `ip {' '.join(make[:2])}` ({kind}) is refused here: " \
                   f"{made.stderr.strip()}"
        _ip(*remove, check=False)
    return None


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)
    if check and result.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {result.stderr.strip()}")
    return result


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def namespace_pids(namespace: str) -> list[int]:
    """The ids of the processes in network namespace ``namespace`` (list of int)."""
    found = _ip("netns", "pids", namespace, check=False).stdout.split()
    return [int(pid) for pid in found if pid.isdigit()]


def _remove_namespace(namespace: str) -> None:
    """SIGKILL every process of ``namespace`` until none is left, then delete it."""
    deadline = time.monotonic() + 30
    while (pids := namespace_pids(namespace)) and time.monotonic() < deadline:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.1)
    _ip("netns", "del", namespace, check=False)


def remove_stale() -> None:
    """Remove the namespaces and bridges named by this module for a process that has exited."""
    names = _ip("netns", "list", check=False).stdout.split()
    for name in names:
        if (found := re.fullmatch(rf"{PREFIX}(\d+)-\w+", name)) and \
                not _pid_alive(int(found.group(1))):
            _remove_namespace(name)
    for line in _ip("-o", "link", "show", "type", "bridge", check=False).stdout.splitlines():
        if (found := re.search(rf": ({PREFIX}(\d+)br)[:@]", line)) and \
                not _pid_alive(int(found.group(2))):
            _ip("link", "del", found.group(1), check=False)


def _free_network() -> str:
    """The first three numbers of a 10.254.X.0/24 network no route of this host uses."""
    routes = _ip("-4", "route", "show", "table", "all", check=False).stdout
    for third in range(10, 250):
        prefix = f"10.254.{third}"
        if f"{prefix}." not in routes:
            return prefix
    raise RuntimeError("no free 10.254.X.0/24 network for the test hosts")


@dataclass
class Host:
    """One host: network namespace ``namespace`` with IPv4 ``address`` on the bridge."""

    name: str
    namespace: str
    address: str

    @property
    def prefix(self) -> tuple[str, ...]:
        """The command prefix running a program in this host: ``ip netns exec NAMESPACE``."""
        return ("ip", "netns", "exec", self.namespace)

    def run(self, args: list[str], env: dict[str, str] | None = None,
            cwd: Path | None = None) -> str:
        """Run ``args`` in this host and return its stdout (str).

        Raises:
            RuntimeError: it exited with an error (the message holds its output's tail).
        """
        result = subprocess.run([*self.prefix, *args], capture_output=True, text=True, env=env,
                                cwd=cwd, timeout=COMMAND_TIMEOUT)
        if result.returncode != 0:
            raise RuntimeError(f"{self.name}: {' '.join(args[:4])}... exited "
                               f"{result.returncode}:\n{result.stdout[-2000:]}"
                               f"{result.stderr[-3000:]}")
        return result.stdout

    def start_server(self, function: str, **kwargs) -> dict:
        """Call ``lib.runtime.embedded.<function>(**kwargs)`` in this host, listening on
        its address too; returns the started Service's ``url``, ``pid`` and ``port``."""
        code = ("import json, sys; from lib.runtime import embedded; "
                f"s = embedded.{function}(**json.loads(sys.argv[1])); "
                "print(json.dumps({'url': s.url, 'pid': s.pid}))")
        kwargs = {**kwargs, "addresses": [self.address]}
        root = Path(__file__).resolve().parents[3]
        out = self.run([sys.executable, "-c", code, json.dumps(kwargs, default=str)], cwd=root)
        started = json.loads(out.strip().splitlines()[-1])
        started["port"] = int(started["url"].rsplit(":", 1)[1].split("/")[0])
        return started

    def pids(self) -> list[int]:
        """The ids of every process running in this host (list of int)."""
        return namespace_pids(self.namespace)

    def kill_all(self) -> list[int]:
        """SIGKILL every process of this host at once, as a lost machine; returns their ids
        once none is left (RuntimeError after 30 s)."""
        killed = self.pids()
        for pid in killed:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while self.pids():
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.name}: processes left after SIGKILL: {self.pids()}")
            time.sleep(0.1)
        return killed


class Network:
    """A bridge and the hosts joined to it (see the module); ``close()`` removes all of it,
    every process of every host killed first."""

    def __init__(self) -> None:
        remove_stale()
        self.tag = f"{PREFIX}{os.getpid()}"
        self.bridge = f"{self.tag}br"
        self.net = _free_network()
        self.address = f"{self.net}.1"
        self.hosts: list[Host] = []
        _ip("link", "add", self.bridge, "type", "bridge")
        try:
            _ip("addr", "add", f"{self.address}/24", "dev", self.bridge)
            _ip("link", "set", self.bridge, "up")
        except RuntimeError:
            self.close()
            raise

    def add_host(self, name: str) -> Host:
        """A new host ``name`` (letters and digits) joined to the bridge; returns it."""
        number = len(self.hosts)
        host = Host(name, f"{self.tag}-{name}", f"{self.net}.{10 + number}")
        outside, inside = f"{self.tag}h{number}", f"{self.tag}n{number}"
        self.hosts.append(host)
        _ip("netns", "add", host.namespace)
        _ip("link", "add", outside, "type", "veth", "peer", "name", inside)
        _ip("link", "set", inside, "netns", host.namespace)
        _ip("link", "set", outside, "master", self.bridge, "up")
        _ip("-n", host.namespace, "addr", "add", f"{host.address}/24", "dev", inside)
        _ip("-n", host.namespace, "link", "set", inside, "up")
        _ip("-n", host.namespace, "link", "set", "lo", "up")
        return host

    def close(self) -> None:
        """Kill every process of every host, delete the namespaces (their veth ends go with
        them) and the bridge."""
        for host in self.hosts:
            _remove_namespace(host.namespace)
        _ip("link", "del", self.bridge, check=False)
