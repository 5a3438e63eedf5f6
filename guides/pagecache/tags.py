"""The cache tags of the guides' data (``gpuguide.lib.cache_tags``): the list of guides, and one
tag per guide for it with its sections, FAQ, tables and sources; the rest (comparisons, legal
pages) is shared, under ``site``."""

from gpuguide.lib.cache_tags import register_write_tags

GUIDES = "guides"  # the list of guides (titles, status), read by the index


def guide(guide_pk: int) -> str:
    """One guide with its sections, FAQ, tables and sources."""
    return f"guide:{guide_pk}"


def write_tags(instance, created: bool) -> set[str] | None:
    if instance._meta.model_name == "guide":
        return {guide(instance.pk), GUIDES}
    guide_pk = getattr(instance, "guide_id", None)
    if guide_pk is not None:  # a section, FAQ entry, table row or source link of one guide
        return {guide(guide_pk)}
    return None  # shared: site


register_write_tags("guides", write_tags)
