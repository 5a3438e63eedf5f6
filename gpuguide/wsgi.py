"""WSGI entry point for gunicorn: `gunicorn gpuguide.wsgi`."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gpuguide.settings")

application = get_wsgi_application()
