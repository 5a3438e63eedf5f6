"""The bounded dict behind each worker's own memory (pages, reads, frames, guide keys)."""

from gpuguide.lib.local_memory import LocalMemory


def test_the_oldest_entry_goes_first_once_the_limit_is_reached():
    memory = LocalMemory(2)
    memory.put("a", 1)
    memory.put("b", 2)
    memory.put("a", 3)  # stored again: now the newest
    memory.put("c", 4)
    assert ("a" in memory, "b" in memory, memory.get("c"), len(memory)) == (True, False, 4, 2)
    assert memory.get("a") == 3


def test_a_callable_limit_is_read_at_every_store():
    limit = [3]
    memory = LocalMemory(lambda: limit[0])
    for key in "abc":
        memory.put(key, key)
    limit[0] = 1
    memory.put("d", "d")
    assert (len(memory), memory.get("d"), memory.get("a")) == (1, "d", None)
    memory.clear()
    assert len(memory) == 0


def test_a_limit_of_zero_keeps_nothing():
    """PAGE_CACHE_LOCAL_PAGES=0: no page in the worker's memory (it had kept the last one)."""
    memory = LocalMemory(0)
    memory.put("a", 1)
    assert memory.get("a") is None and len(memory) == 0
