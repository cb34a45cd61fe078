"""The production files are consistent: docker-compose.yml (parsed, not run: no Docker here),
.env.example and the settings that read it."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def _compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_stateful_services_have_pinned_images_healthchecks_and_volumes():
    services = _compose()["services"]
    assert services["mongo"]["image"] == "mongo:7"
    assert services["redis"]["image"] == "redis:7"
    assert services["postgres"]["image"] == "postgres:18"
    assert "pgdata18:/var/lib/postgresql" in services["postgres"]["volumes"]
    assert "--appendonly" in services["redis"]["command"]
    for name in ("mongo", "redis", "postgres"):
        assert services[name]["healthcheck"]["test"], name
        assert any(v.split(":")[0] in _compose()["volumes"] for v in services[name]["volumes"])


def test_apps_wait_for_healthy_dependencies_and_queues_are_separate():
    services = _compose()["services"]
    apps = ["web", "worker-ingest", "worker-crawl", "worker-render", "worker-capture",
            "worker-match", "worker-archive", "beat"]
    for name in apps:
        depends = services[name]["depends_on"]
        for dependency in ("postgres", "mongo", "redis"):
            assert depends[dependency]["condition"] == "service_healthy", (name, dependency)
        assert services[name]["env_file"] == ".env"
    queues = {name: services[name]["command"][services[name]["command"].index("-Q") + 1]
              for name in apps if "-Q" in services[name]["command"]}
    assert queues["worker-crawl"] == "crawl" and queues["worker-match"] == "match"
    assert queues["worker-render"] == "render" and queues["worker-capture"] == "capture"
    assert queues["worker-archive"] == "archive"
    from django.conf import settings  # every queue of the settings consumed, no other one

    consumed = [q for spec in queues.values() for q in spec.split(",")]
    assert sorted(consumed) == sorted(settings.WORKER_QUEUES)
    assert {route["queue"] for route in settings.CELERY_TASK_ROUTES.values()} <= set(consumed)
    assert sum("beat" in services[name].get("command", []) for name in services) == 1
    assert "gunicorn" in services["web"]["command"]


def test_every_example_variable_is_read_by_the_settings():
    settings_py = (ROOT / "tracker" / "settings" / "base.py").read_text()
    names = re.findall(r"^([A-Z_]+)=", (ROOT / ".env.example").read_text(), re.MULTILINE)
    compose_only = {"POSTGRES_DB", "POSTGRES_USER", "POSTGRES_PASSWORD"}
    missing = [n for n in names if n not in compose_only and f'"{n}"' not in settings_py]
    assert names and not missing
