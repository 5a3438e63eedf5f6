"""The guides app's admin: each module registers its ModelAdmins when imported here, as
Django's admin autodiscovery imports ``guides.admin``.

- ``guide``: the guide form (translations side by side, ordered inlines, publishing rules,
  working copies, preview, schedule, diff, revert, duplicate for another model);
- ``edit_view``: its add and change pages, which validate the forms and then call the
  publishing use cases in sequence;
- ``translation_views``: the guide's translation views, exports and imports (a mixin of
  GuideAdmin's);
- ``prose``: what forms with editor prose share (token help, picker and checks; previews);
- ``pages``: comparison pairs and legal pages;
- ``deletion``: where an object is used, for the delete pages of ``gpuguide.lib.deletion_safety``
  (the guides and pricing admins').
"""

# They register their ModelAdmins, and the use index the delete pages list.
from guides.admin import deletion, guide, pages  # noqa: F401
