#!/usr/bin/env python
"""Django's command-line utility, with a one-line message when the database cannot be reached."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gpuguide.settings")
    from django.core.management import execute_from_command_line
    from django.db.utils import OperationalError

    try:
        execute_from_command_line(sys.argv)
    except OperationalError as exc:
        from django.conf import settings

        from gpuguide.lib.config import exit_with

        db = settings.DATABASES["default"]
        where = db.get("HOST") or db.get("NAME")
        port = f":{db['PORT']}" if db.get("PORT") else ""
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        exit_with(f"cannot use the database at {where}{port} (check DATABASE_URL): {reason}")


if __name__ == "__main__":
    main()
