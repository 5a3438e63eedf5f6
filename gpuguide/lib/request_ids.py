"""A request id (``X-Request-ID`` from a trusted proxy, or a new one) in the answer and in every
log line of its request (``request_id``, "-" outside one); the JSON log format.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from collections.abc import Callable
from contextvars import ContextVar
from datetime import UTC, datetime

from django.core.signals import request_finished
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse

from gpuguide.lib.client_address import from_trusted_proxy

HEADER = "X-Request-ID"
_ACCEPTED = re.compile(r"[A-Za-z0-9._:-]{1,128}")  # what a proxy's id may be: no spaces, short
_request_id: ContextVar[str] = ContextVar("gpuguide_request_id", default="-")


class RequestIdMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # Not reset on the way out: Django logs a 4xx/5xx answer after the whole middleware
        # chain has returned; request_finished (below) resets it once the response is sent.
        given = request.META.get("HTTP_X_REQUEST_ID", "")
        trusted = _ACCEPTED.fullmatch(given) and from_trusted_proxy(request)
        request_id = given if trusted else uuid.uuid4().hex
        _request_id.set(request_id)
        response = self.get_response(request)
        response[HEADER] = request_id
        return response


@receiver(request_finished, dispatch_uid="gpuguide_request_id_forget")
def _forget(**_kwargs) -> None:
    _request_id.set("-")


class RequestIdFilter(logging.Filter):
    """Puts ``request_id`` on every record (the handler's filter: records of every logger)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = _request_id.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time (UTC), level, logger, message, request id, exception."""

    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", _request_id.get()),
        }
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)
