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
    return _user("erika", "Editors")


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


_INITIAL_FORM_DATA: dict[tuple[str, str], dict] = {}


def initial_form_data(client, url: str) -> dict:
    """``form_data`` of ``url`` as first shown to the signed-in user, fetched once per run.

    Every test starts from the same seed on the same pinned day, so an admin form renders the
    same way each time; rendering the guide form takes about a second, so tests share it.
    """
    key = (url, auth.get_user(client).username)
    if key not in _INITIAL_FORM_DATA:
        _INITIAL_FORM_DATA[key] = form_data(client.get(url))
    return dict(_INITIAL_FORM_DATA[key])
