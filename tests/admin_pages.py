"""The admin tests' users (fixtures) and form helpers: the form a change page renders,
rendered once per run (registered by tests/conftest.py's ``pytest_plugins``)."""

import pytest
from django.contrib import auth
from django.contrib.auth.models import Group, User


def _user(name: str, group: str | None = None) -> User:
    user = User.objects.create_user(name, password="pw-for-tests-only", is_staff=True)
    if group:
        user.groups.add(Group.objects.get(name=group))
    return user


@pytest.fixture
def editor(seeded) -> User:
    """An editor who may publish: a Reviewer (Editors' rights and publishing)."""
    return _user("erika", "Reviewers")


@pytest.fixture
def author(seeded) -> User:
    """An Editor who may not publish (EDITORS_MAY_PUBLISH is off): submits for review."""
    user = _user("aiko", "Editors")
    user.email = "aiko@example.com"
    user.save()
    return user


@pytest.fixture
def translator_de(seeded) -> User:
    return _user("till", "Translators (German)")


@pytest.fixture
def recorder(seeded) -> User:
    return _user("ramon", "Price recorders")


@pytest.fixture
def administrator(seeded) -> User:
    return _user("ada", "Administrators")


def form_data(response) -> dict:
    """The POST data a browser would send back for an admin change form, as rendered."""
    data = {}

    def add(form) -> None:
        for bound in form:
            value = bound.value()
            if value is None:
                continue
            if isinstance(value, bool):
                if value:
                    data[bound.html_name] = "on"
                continue
            data[bound.html_name] = value if not isinstance(value, list) else value

    add(response.context["adminform"].form)
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        add(formset.management_form)
        for form in formset.forms:
            add(form)
    return {k: ("" if v is None else v) for k, v in data.items()}


_INITIAL_PAGES: dict[tuple[str, str], tuple[str, dict, dict]] = {}


def _initial_page(client, url: str) -> tuple[str, dict, dict]:
    """``url`` as first shown to the signed-in user, fetched once per run: its HTML, its
    ``form_data`` and its fieldsets.

    Every test starts from the same seed on the same pinned day, so an admin form renders the
    same way each time; rendering the guide form takes about a second, so tests share it. Only
    for a form as the seed shows it: a test that changes what the form shows before it opens
    it (a guide made a draft, or made in the test) reads its own (``form_data``), or whichever
    test ran first would hand its form to every later one.
    """
    key = (url, auth.get_user(client).username)
    if key not in _INITIAL_PAGES:
        response = client.get(url)
        fieldsets = {
            name: options["fields"] for name, options in response.context["adminform"].fieldsets
        }
        _INITIAL_PAGES[key] = (response.content.decode(), form_data(response), fieldsets)
    return _INITIAL_PAGES[key]


def initial_form_data(client, url: str) -> dict:
    """The POST data of ``url``'s form as first shown (a copy: change it freely)."""
    return dict(_initial_page(client, url)[1])


def initial_page(client, url: str) -> tuple[str, dict]:
    """The HTML of ``url`` as first shown, and its fieldsets' field names by fieldset name."""
    body, _data, fieldsets = _initial_page(client, url)
    return body, fieldsets
