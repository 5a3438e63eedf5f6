"""Live figures in editor prose: ``[[memory qlora]]`` renders as ``52,5 GB`` in German and
follows every price check. ``registry`` holds the grammar, ``kinds`` and ``serving_kinds``
the kinds, ``render`` turns prose into escaped HTML."""
