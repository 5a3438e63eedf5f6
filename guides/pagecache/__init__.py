"""Whole-page caching for visitors: keyed on what a page shows, versioned by what it read.

- **Key** (``http``): the language, the path and only the query parameters the page uses (the
  view declares them; any other parameter is dropped before the view runs, so it can neither
  make an entry nor show up in the page). The host is not part of it: absolute URLs come from
  ``SITE_URL``.
- **Versions** (``versions``): a page records the tags of the data it reads
  (``gpuguide.lib.cache_tags``), each with the tag's current version, and is stored with them. A
  write replaces the versions of the tags it touches and the *generation*, in its own transaction
  (``invalidation``), so only the pages that read that data go stale (a price check: the pages
  quoting that provider; an edit: that guide). Versions live in the database only: every visit
  reads the generation (one query) and serves a cached page only under the versions the database
  holds now, so a write by any process is on the very next page anyone is served, and a cache
  that lost, kept or got back older entries can cost renders but never serve an older page.
- **After a write commits**, ``signals.pages_stale`` announces the tags; the task worker
  (``guides.background.tasks``) listens and renders the affected pages again into the shared
  cache, so that the first visitor after a write does not pay the render (with Redis).
- Entries expire at the next local midnight ("today" moves on), at the latest; pages as of a
  day longer ago than ``PAGE_CACHE_PAST_DAYS`` are not stored at all.
- **Cached reads** (``reads``): the reference tables, the latest prices and the guides with
  their rows are cached under the versions of their tags too, in the same cache: a render
  after a price check reads only the prices again.
- Signed-in staff (previews, drafts) are never served from or stored in the cache, and their
  responses say ``private, no-store``.

Nothing here imports task, page or admin code: they import this package, or listen to its
signals.
"""
