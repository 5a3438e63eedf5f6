"""The cache tags of pricing's data (``gpuguide.lib.cache_tags``): one per provider, for its
price checks and prices; the rest of pricing (GPUs, methods, sources, facts, providers' names)
is shared, under ``site``."""

from gpuguide.lib.cache_tags import SITE, register_write_tags


def prices(provider_pk: int) -> str:
    """One provider's price checks and prices."""
    return f"prices:{provider_pk}"


def write_tags(instance, created: bool) -> set[str] | None:
    label = instance._meta.model_name
    if label == "price" or (label == "pricecheck" and created):
        return {prices(instance.provider_id)}
    if label == "pricecheck":  # a corrected check may have moved to another provider
        return {prices(instance.provider_id), SITE}
    return None  # shared: site


register_write_tags("pricing", write_tags)
