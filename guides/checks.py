"""``manage.py check --deploy --database default`` before a launch: the operator's details the
legal pages need (deploy-only: ``migrate``, which runs the database checks, never fails on it)."""

from django.core.checks import Error, Tags, register
from django.db import DatabaseError

from guides.models import Operator

OPERATOR_INCOMPLETE = "gpuguide.E010"


@register(Tags.database, deploy=True)
def check_operator(app_configs=None, databases=None, **kwargs) -> list[Error]:
    if not databases:
        return []
    hint = (
        "Fill it in in the admin (Guides › Operator): until then the imprint, the privacy "
        "notice and the commercial-transactions notice answer 404 (docs/operations.md)."
    )
    try:
        operator = Operator.objects.using(databases[0]).first()
    except DatabaseError as exc:  # not migrated yet: migrate's own checks say so
        return [Error(f"The operator's details cannot be read: {exc}", id=OPERATOR_INCOMPLETE)]
    if operator is None:
        return [
            Error("The operator's details are not filled in.", hint=hint, id=OPERATOR_INCOMPLETE)
        ]
    return [
        Error(
            f"The operator's details lack “{name}”.",
            hint=hint,
            obj=operator,
            id=OPERATOR_INCOMPLETE,
        )
        for name in operator.missing_fields()
    ]
