"""The guides app's admin: each module registers its ModelAdmins when imported here, as
Django's admin autodiscovery imports ``guides.admin``. ``guide`` is the guide form, whose add and
change pages are ``edit_view``'s; ``pages`` the comparison pairs and legal pages; ``deletion``
where an object is used, for the delete pages."""

from guides.admin import deletion, guide, pages  # noqa: F401
