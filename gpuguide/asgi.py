"""ASGI entry point, for servers such as uvicorn or daphne."""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gpuguide.settings")

application = get_asgi_application()
gc.freeze()  # as gpuguide/wsgi.py explains
