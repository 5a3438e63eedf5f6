"""Whole-page caching for visitors: keyed on what a page shows, versioned by what it read.

- **Key** (``http``): the language, the path and only the query parameters the page uses (the
  view declares them; any other parameter is dropped before the view runs, so it can neither
  make an entry nor show up in the page). The host is not part of it: absolute URLs come from
  ``SITE_URL``.
- **Versions** (``versions``): a page records the tags of the data it reads
  (``gpuguide.lib.cache_tags``), each with the tag's current token, and is stored with them. A
  write replaces the tokens of the tags it touches (``invalidation``), so only the pages that
  read that data go stale (a price check: the pages quoting that provider; an edit: that
  guide). Tokens are random (never repeated, even after a restore), kept in the cache so that a
  cached visit reads no table, and in the database as the fallback when the cache has lost them.
- **After a write commits**, ``signals.pages_stale`` announces the tags; the task worker
  (``guides.tasks``) listens and renders the affected pages again. A visitor who comes first
  gets the previous page for up to ``PAGE_CACHE_STALE_SECONDS`` after the change
  (stale-while-revalidate) and ``signals.refresh_wanted`` asks for that page again in the
  background; after that, a stale page is rendered on the spot.
- Entries expire at the next local midnight ("today" moves on), at the latest.
- **Cached reads** (``reads``, ``fragments``): reference tables, guides and the parts of a page
  that read no price are cached under the same tokens; each worker keeps its latest ones and
  the pages it found current in its own bounded memory (``memory``).
- Signed-in staff (previews, drafts) are never served from or stored in the cache, and their
  responses say ``private, no-store``.

Nothing here imports task, page or admin code: they import this package, or listen to its
signals.
"""
