"""`make test`'s group (``pytest --fast``): the tests chosen by name to keep in a minute.

``make test`` runs only what ``FAST_GROUP`` names (never a test marked ``heavy``); ``make
test-all`` and CI run everything. Each entry is a folder (``tests/pricing/domain/``), a file,
or one test (``file::test``, all its parameters). The group keeps what issue 49 asked for,
each line saying why, and then the cheapest files that cover the most code the rest does not
reach (docs/testing.md, "Two groups", gives the time and the coverage of both).
"""

import pytest

FAST_GROUP: dict[str, str] = {
    # The pure maths: every calculation, estimate and formatting rule, no database.
    "tests/pricing/domain/": "the pure maths",
    # Every public page in three languages: its text (test client), valid HTML, and at 390 px
    # in Chromium with nothing wider than the phone and nothing from outside.
    "tests/test_page_text.py": "every public page in three languages, its text",
    "tests/test_html_validity.py": "every public page in three languages, Nu HTML checker",
    "tests/browser/test_public_pages.py::"
    "test_no_table_is_wider_than_a_phone_and_no_page_scrolls_sideways": "every public page, 390 px",
    # The one-truth test: guide pages, planner and API agree, in every language.
    "tests/test_one_truth.py::test_every_guide_page_planner_and_api_agree_in_every_language":
    "the one-truth test",
    "tests/test_one_truth.py::test_the_api_answers_the_guides_run_and_its_figures":
    "the one-truth test, the API's side",
    "tests/test_one_truth.py::test_a_price_change_moves_page_and_api_together":
    "the one-truth test after a price change",
    "tests/pricing/api/test_serving.py::test_every_model_the_page_and_the_api_recommend_the_same":
    "the one-truth test, serving",
    "tests/guides/pages/test_serving_guide.py::"
    "test_every_serving_guide_says_what_the_api_and_the_planner_compute":
    "the one-truth test, serving guides",
    # One admin round trip per button.
    "tests/guides/admin/test_revision_views.py::test_a_live_guides_edit_is_a_draft_until_published":
    "Save draft",
    "tests/guides/admin/test_revision_views.py::test_save_and_publish_in_one_click":
    "Save and publish",
    "tests/guides/admin/test_reviews.py::test_a_submission_is_reviewed_sent_back_and_approved":
    "Save and submit for review, Send back, Approve",
    "tests/guides/admin/test_reviews.py::test_a_translator_submits_from_the_revisions_page":
    "Submit for review (revisions page)",
    "tests/guides/admin/test_revision_views.py::test_revert_makes_a_new_revision_from_an_old_one":
    "Revert",
    "tests/guides/admin/test_revision_views.py::"
    "test_the_diff_names_each_changed_field_in_its_language": "Compare the chosen revisions",
    "tests/guides/admin/test_publishing.py::test_scheduling_a_go_live_replaces_the_guides_other":
    "Save schedule",
    "tests/guides/admin/test_publishing.py::test_clearing_a_schedule": "Unschedule",
    "tests/guides/admin/test_publishing.py::"
    "test_publishing_an_older_revision_shows_what_it_changes_first": "Publish revision N",
    "tests/guides/admin/test_guide_checks.py::test_duplicate_for_another_model_in_the_admin":
    "Duplicate",
    "tests/guides/admin/test_guide.py::test_a_guide_is_added_with_its_rows_as_a_draft": "Add guide",
    "tests/guides/admin/test_guide.py::test_admin_index_shows_the_dashboard": "the dashboard",
    "tests/guides/admin/test_translation_views.py::"
    "test_saving_one_field_makes_a_draft_revision_like_the_guide_form": "Save translation",
    "tests/guides/admin/test_translation_views.py::"
    "test_an_import_is_checked_in_a_dry_run_then_applied": "Check the file, Apply the import",
    "tests/guides/admin/test_translation_views.py::test_the_export_downloads_the_seed_format":
    "Export",
    "tests/guides/admin/test_coediting.py::test_using_theirs_resolves_a_conflict": "Use theirs",
    "tests/guides/admin/test_guide_search.py::test_a_slug_and_a_title_are_still_found": "Search",
    "tests/guides/admin/test_deletion.py::test_what_nothing_uses_is_deleted_as_before": "Delete",
    "tests/pricing/admin/test_price_checks.py::"
    "test_changing_one_price_records_the_whole_check_through_the_service": "Record a check",
    "tests/pricing/admin/test_price_entry.py::"
    "test_a_jump_is_asked_about_naming_the_row_and_saved_once_confirmed": "Confirm a jump",
    "tests/pricing/admin/test_price_recording.py::"
    "test_a_correction_supersedes_the_mistaken_check_and_keeps_it": "Correct a check",
    "tests/pricing/admin/test_language_models.py::test_an_editor_changes_a_seeded_model":
    "Save a language model",
    "tests/pricing/admin/test_shared_changes.py::"
    "test_a_tenfold_tflops_slip_is_held_until_confirmed_naming_what_it_moves":
    "Confirm a change to shared data",
    "tests/accounts/test_admin.py::test_add_user_takes_several_roles": "Add user",
    "tests/accounts/test_admin.py::test_a_staff_user_sets_up_an_authenticator_app":
    "Turn on two-factor sign-in",
    "tests/accounts/test_admin.py::test_with_a_device_the_code_is_required_at_sign_in": "Log in",
    "tests/accounts/test_throttling.py::test_an_administrator_unlocks_an_account_at_once":
    "Unlock",
    "tests/accounts/test_throttling.py::test_a_password_reset_by_email_works_and_forgets_failures":
    "Reset password",
    # One browser round per workflow.
    "tests/browser/test_editor.py": "editing: draft, schedule, revert, publish",
    "tests/browser/test_review.py": "review with three roles",
    "tests/browser/test_prices.py::test_a_mistaken_check_is_corrected_and_kept": "prices",
    "tests/browser/test_translation.py::test_a_file_downloaded_changed_checked_and_imported":
    "translation",
    "tests/browser/test_coediting.py": "two editors at once",
    "tests/browser/test_admin_safety.py::"
    "test_the_delete_page_of_a_quoted_fact_lists_the_faq_and_deletes_nothing": "deletion",
    "tests/browser/test_public_pages.py::test_the_planner_answers_bad_input_in_place_then_plans":
    "the planner",
    # The migrations match the models.
    "tests/test_migrations.py": "makemigrations --check",
    # Cheap files (well under a second each, idle) that reach code the rest of the group does
    # not: they bring the group's line coverage within 5 points of the suite's.
    "tests/pricing/test_record_price_check.py": "the price-check command and services",
    "tests/pricing/test_selectors.py": "price reads",
    "tests/pricing/test_supersede.py": "corrections",
    "tests/pricing/test_models.py": "models",
    "tests/pricing/test_fields.py": "the model slug field",
    "tests/pricing/test_seeded_models.py": "the seed's models",
    "tests/pricing/api/": "the API (schemas, planning)",
    "tests/guides/content/": "tokens, phrases, diff pieces",
    "tests/guides/templatetags/": "figure filters",
    "tests/guides/editorial/test_translating.py": "translation use cases",
    "tests/guides/pages/test_planner.py": "the planner's form and page",
    "tests/guides/pages/test_charts.py": "charts",
    "tests/guides/pages/test_as_of.py": "dated figures",
    "tests/guides/background/test_worker.py": "the task worker in-process",
    "tests/guides/background/test_task_queue.py": "the task queue",
    "tests/gpuguide/lib/test_bounded_input.py": "bounded JSON and XML",
    "tests/gpuguide/lib/test_rate_limits.py": "rate limits",
    "tests/gpuguide/lib/test_editor_input.py": "editor input validators",
    "tests/gpuguide/lib/test_metrics.py": "metrics and request ids",
    "tests/reliability/test_outages.py": "database outages answered",
    "tests/reliability/test_redis_outage.py": "Redis outages answered",
    "tests/reliability/test_headers.py": "security headers",
    "tests/test_architecture.py": "the layers contract",
    "tests/test_layout.py": "the README's map",
    "tests/test_catalogues.py": "the translation catalogues",
    "tests/gpuguide/lib/test_backups.py": "backups, the checks before a restore",
    "tests/guides/editorial/test_share_images.py": "share images, drawn and served",
    "tests/guides/pages/test_public_face.py::"
    "test_guide_feed_lists_every_published_guide_newest_edit_first": "the feed",
    "tests/guides/pages/test_public_face.py::test_price_feed_has_an_entry_per_price_change":
    "the price feeds (0.05 s)",
    "tests/guides/pages/test_public_face.py::test_price_feed_titles_follow_the_language":
    "the price feeds' languages (0.05 s)",
    "tests/accounts/test_signin_link.py": "sign-in links and the attack mail (22 tests, 1.4 s)",
}  # fmt: skip

# Left to the suite although their file is in the group: seconds each.
NOT_IN_FAST_GROUP: dict[str, str] = {
    "tests/gpuguide/lib/test_backups.py::test_a_restored_backup_brings_back_every_row_and_page":
    "a whole backup restored and every page compared, about 4 s",
    # A restore runs every migration into an empty database (about 3 s, 6-13 s for a test):
    # the group keeps the backups' checks that need no restore; the suite restores.
    "tests/gpuguide/lib/test_backups.py::test_a_restore_brings_rows_only_never_the_dumps_constraints_or_indexes":
    "two restores and a backup, about 6 s (13 s on a slow machine)",
    "tests/gpuguide/lib/test_backups.py::test_a_backup_from_before_a_migration_is_migrated_on_its_rows":
    "two restores and a migration back, about 6 s",
    "tests/gpuguide/lib/test_backups.py::test_a_table_with_columns_the_migrations_do_not_make_is_refused":
    "a restore to plant the column, about 6 s",
    "tests/gpuguide/lib/test_backups.py::test_a_restore_signs_everyone_out_and_says_passwords_are_the_old_ones":
    "two restores, about 6 s",
    "tests/gpuguide/lib/test_backups.py::test_a_payload_signed_with_the_right_key_is_refused_by_the_schema_check":
    "a restore to plant each payload, about 3 s each",
    "tests/gpuguide/lib/test_backups.py::test_a_changed_database_file_is_refused_without_a_new_signature":
    "a restore to plant the trigger, about 3 s",
    "tests/gpuguide/lib/test_backups.py::test_an_extra_superuser_alone_is_refused_without_a_new_signature":
    "a restore to plant the superuser, about 3 s",
    "tests/gpuguide/lib/test_backups.py::test_a_restore_stopped_at_any_point_leaves_no_page_or_session_from_before":
    "three restores, about 9 s",
    "tests/guides/content/test_sentences.py":
    "every guide's sentences against the fit computation, 137 page renders (test_one_truth "
    "holds page, planner and API together in the group)",
}  # fmt: skip


def _named(nodeid: str, entries) -> bool:
    for entry in entries:
        if entry.endswith("/") and nodeid.startswith(entry):
            return True
        if nodeid == entry or nodeid.startswith((entry + "::", entry + "[")):
            return True
    return False


def _matches_any(entry: str, items: list[pytest.Item]) -> bool:
    return any(_named(item.nodeid, (entry,)) for item in items)


def in_fast_group(nodeid: str) -> bool:
    return _named(nodeid, FAST_GROUP) and not _named(nodeid, NOT_IN_FAST_GROUP)


def select(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep the fast group's tests (not ``heavy``) and deselect the rest, counted for the
    run's summary (sent from each xdist worker through ``workeroutput``)."""
    kept, left = [], []
    for item in items:
        fast = in_fast_group(item.nodeid) and item.get_closest_marker("heavy") is None
        (kept if fast else left).append(item)
    if config.args in ([], ["tests"], [str(config.rootpath / "tests")]):
        # A whole run: every name in the group must still name a test (one renamed or moved
        # would otherwise drop out of `make test` without a word).
        named = (*FAST_GROUP, *NOT_IN_FAST_GROUP, *LONGEST_FILES)
        stale = [e for e in named if not _matches_any(e, items)]
        if stale:
            raise pytest.UsageError(f"tests/fast_group.py names no test any more: {stale}")
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = kept
    config.stash[LEFT_OUT] = {
        "tests": len(left),
        "files": sorted({item.nodeid.split("::")[0] for item in left}),
        "run": len(kept),
    }


LEFT_OUT = pytest.StashKey[dict]()


# The files that take longest, each a whole file on one worker (``--dist loadfile``), handed
# out first and longest first, so that the other worker fills in around them with the short
# ones (the seconds: each file alone on an idle machine, its database already seeded). Handed
# out last, as by xdist's own order (most tests first), two or three of them met on one worker
# while the other stood idle: 84 s against 53 s. ``select`` fails a run on a stale name here.
LONGEST_FILES = (
    "tests/browser/test_editor.py",  # about 12 s
    "tests/browser/test_coediting.py",  # 10 s
    "tests/browser/test_review.py",  # 7 s
    "tests/browser/test_public_pages.py",  # 4 s
    "tests/test_html_validity.py",  # 3 s
    "tests/browser/test_prices.py",  # 2.5 s
)


def file_order(items: list[pytest.Item], *, browser_last: bool) -> list[pytest.Item]:
    """``items`` file by file: ``LONGEST_FILES`` first, then the files with most tests first
    (xdist's own heuristic, which pyproject.toml's --no-loadscope-reorder turns off so that
    this order holds). With ``browser_last``, the browser files after all others: on
    PostgreSQL the live server writes through connections of its own and commits, and a test
    after a browser round on its worker would find that round's revisions, sessions and log
    entries (on SQLite the server shares the test's connection and transaction)."""
    files: dict[str, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::")[0], []).append(item)

    def rank(path: str) -> tuple[bool, int, int]:
        browser = files[path][0].get_closest_marker("browser") is not None
        if path in LONGEST_FILES:
            return (browser_last and browser, 0, LONGEST_FILES.index(path))
        return (browser_last and browser, 1, -len(files[path]))

    return [item for path in sorted(files, key=rank) for item in files[path]]


def summary_lines(config: pytest.Config) -> list[str]:
    left = config.stash.get(LEFT_OUT, None)
    if left is None:
        return []
    folders: dict[str, list[int]] = {}
    for path in left["files"]:
        counts = folders.setdefault(path.rsplit("/", 1)[0] + "/", [0, 0])
        counts[0 if _partly_run(path) else 1] += 1
    where = "; ".join(
        f"{folder} {whole} whole file(s){f' and parts of {part}' if part else ''}"
        if whole
        else f"{folder} parts of {part} file(s)"
        for folder, (part, whole) in sorted(folders.items())
    )
    return [
        f"FAST GROUP ONLY: `make test` ran {left['run']} tests chosen in tests/fast_group.py and "
        f"did NOT RUN the other {left['tests']} (the heavy group among them). `make test-all` "
        "and CI run everything.",
        f"Not run: {where}.",
    ]


def _partly_run(path: str) -> bool:
    return any(entry.split("::")[0] == path or path.startswith(entry) for entry in FAST_GROUP)
