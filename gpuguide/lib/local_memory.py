"""A bounded dict for what a worker keeps in its own memory: the oldest entries go first."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


class LocalMemory:
    """A dict of at most ``limit`` entries (the oldest go first), shared by a worker's threads.

    ``limit`` may be a callable, read at every store, so that a setting changed at run time
    (``PAGE_CACHE_LOCAL_PAGES``) takes effect at once.
    """

    def __init__(self, limit: int | Callable[[], int]) -> None:
        self._limit = limit if callable(limit) else (lambda: limit)
        self._entries: dict[str, Any] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> Any:
        return self._entries.get(key)

    def put(self, key: str, value: Any) -> None:
        with self._lock:
            self._entries.pop(key, None)
            if self._limit() <= 0:  # keep nothing (PAGE_CACHE_LOCAL_PAGES=0)
                return
            while self._entries and len(self._entries) >= self._limit():
                del self._entries[next(iter(self._entries))]  # the oldest
            self._entries[key] = value

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries
