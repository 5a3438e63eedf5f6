"""Real answers checked against the API's own OpenAPI description (/api/v1/openapi.json).

``assert_described(response, path)`` looks up the schema the description gives for the
response's path, method and status, and validates the body with jsonschema (OpenAPI 3.1's
schemas are JSON Schema 2020-12), dates checked as dates. Stricter than the description in one
way: an object may not carry a property the description does not list, so an answer cannot
grow an undocumented field.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from django.test import Client
from jsonschema import Draft202012Validator

OPENAPI_URL = "/api/v1/openapi.json"


@cache
def description() -> dict[str, Any]:
    """The OpenAPI description as the API serves it, fetched once per run."""
    response = Client().get(OPENAPI_URL)
    assert response.status_code == 200, response.content
    return response.json()


@cache
def validator(path: str, method: str, status: int) -> Draft202012Validator:
    spec = description()
    answer = spec["paths"][path][method]["responses"][str(status)]
    schema = answer["content"]["application/json"]["schema"]
    # "#/components/..." references resolve against the document they sit in.
    document = {**schema, "components": _closed(spec["components"])}
    Draft202012Validator.check_schema(document)
    return Draft202012Validator(document, format_checker=Draft202012Validator.FORMAT_CHECKER)


def _closed(components: dict[str, Any]) -> dict[str, Any]:
    closed = copy.deepcopy(components)
    for schema in closed["schemas"].values():
        if "properties" in schema:
            schema.setdefault("additionalProperties", False)
    return closed


def assert_described(response, path: str, method: str = "get") -> None:
    """``response``'s JSON body is what the description promises for ``path`` (a template
    such as ``/api/v1/prices/{gpu}/``) and the response's status."""
    assert response["Content-Type"] == "application/json; charset=utf-8"
    validator(path, method, response.status_code).validate(response.json())
