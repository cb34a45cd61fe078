#!/usr/bin/env python
"""Django's command-line utility for the copyright-tracking platform."""

import os
import sys

# Commands that need no server, and those that need the database only.
NO_SERVERS = {"help", "check", "makemigrations", "makemessages", "compilemessages",
              "collectstatic", "demo_site", "diffsettings", "version", "sqlmigrate", "startapp",
              "verify_evidence", "--help", "-h", "--version"}
DATABASE_ONLY = {"migrate", "showmigrations", "dumpdata", "loaddata", "flush",
                 "createsuperuser", "changepassword", "dbshell"}


def main() -> None:
    """Run a Django management command given on the command line. Before a command that needs
    servers, say on stderr which ones it uses and stop with a one-line message (exit status 1)
    when one does not answer, or when one fails while the command runs."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tracker.settings")
    import django
    from django.core.management import execute_from_command_line

    command = sys.argv[1] if len(sys.argv) > 1 else "help"
    if command in NO_SERVERS:
        execute_from_command_line(sys.argv)
        return
    django.setup()
    from django.db import InterfaceError, OperationalError
    from kombu.exceptions import OperationalError as BrokerError

    from core.connections import (
        ServersUnavailable,
        check_servers,
        describe_servers,
        storage_errors,
    )

    print(describe_servers(), file=sys.stderr, flush=True)
    try:
        check_servers(("DATABASE_URL",) if command in DATABASE_ONLY else
                      ("DATABASE_URL", "MONGO_URL", "REDIS_URL"))
        execute_from_command_line(sys.argv)
    except ServersUnavailable as exc:
        sys.exit(f"manage.py {command}: {exc}")
    except (OperationalError, InterfaceError, BrokerError, *storage_errors()) as exc:
        first = str(exc).splitlines()[0] if str(exc) else ""
        sys.exit(f"manage.py {command}: a server stopped answering ({type(exc).__name__}: "
                 f"{first}); check `make run` or the servers' URLs (manage.py prints them)")


if __name__ == "__main__":
    main()
