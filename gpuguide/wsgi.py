"""WSGI entry point for gunicorn: `gunicorn gpuguide.wsgi`."""

import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gpuguide.settings")

application = get_wsgi_application()

# What start-up loaded (modules, models, settings) lives as long as the app server's process
# (gunicorn's workers, runserver): moved out of the cyclic garbage collector's sight, a full
# collection no longer walks it again (~1.4 ms of an uncached guide render, see
# docs/performance.md). Here and in asgi.py rather than in an AppConfig, so that commands and
# the task worker collect as usual (the test session freezes after seeding, tests/conftest.py).
gc.freeze()
