"""The migrations say what the models say: a model changed without its migration fails here,
in `make test`'s fast group, and not only when a deployment migrates. Also right where the test
database is built from the models (``pytest --nomigrations``, as ``make mutation`` runs)."""

from io import StringIO

import pytest
from django.core.management import call_command


def test_no_model_change_lacks_its_migration(db, settings):  # db: the history check reads it
    settings.MIGRATION_MODULES = {}  # --nomigrations hides the migrations from makemigrations too
    out = StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit:  # --check exits with 1 when a migration is missing
        pytest.fail(f"a model change has no migration (makemigrations):\n{out.getvalue()}")
