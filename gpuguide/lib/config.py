"""Reading settings from the environment, with one-line errors instead of tracebacks.

Kept free of Django imports so that settings.py and manage.py can both use it.
"""

import sys
from urllib.parse import urlsplit, urlunsplit


def redact_url(url: str) -> str:
    """Return the URL with any password replaced, so that errors never print secrets."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparseable URL>"
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def exit_with(message: str) -> None:
    """Print a single clear line and stop; used where a traceback would only bury the cause."""
    print(f"gpuguide: {message}", file=sys.stderr)
    raise SystemExit(2)
