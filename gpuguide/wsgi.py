"""WSGI entry point for gunicorn: `gunicorn gpuguide.wsgi`."""

import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gpuguide.settings")

application = get_wsgi_application()

# What start-up loaded lives as long as the process: out of the cyclic collector's sight, a full
# collection no longer walks it (~1.4 ms of an uncached guide render, docs/performance.md). Not in
# an AppConfig, so that commands and the task worker collect as usual.
gc.freeze()
