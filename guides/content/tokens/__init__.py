"""Live figures in editor prose: ``[[kind arg ...]]`` tokens.

Editors never type a figure: ``QLoRA braucht etwa [[memory qlora]]`` renders as
``QLoRA braucht etwa 52,5 GB`` in German and follows every price check and rule change.

- ``registry``: the grammar and the registry; checks prose without rendering or queries.
- ``kinds``: every kind, declared with ``@registry.kind`` beside its render function.
- ``render``: prose to escaped HTML with the tokens filled.
"""
