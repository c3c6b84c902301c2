"""Give freed memory back to the kernel while the scorer serves, instead of keeping it for good.

glibc serves a block of more than 128 KiB from a mapping of its own and unmaps it when it is freed, but after
the first such block is freed it raises that threshold to the block's size (up to 32 MiB), so that later
ones of that size come from the heap and stay there once freed; and each thread that allocates may get an
arena of its own (up to eight per core). A photo read makes dozens of temporaries of a few MB, on the web
server's worker threads: the server's resident memory rose by what the largest request had needed and never
came down, from 190 MB to 410 MB after three Tang Garden uploads of four photos at once, which under the
unit's MemoryMax is the difference between a restart and none. With the threshold held at 128 KiB and two
arenas, the same uploads peaked at 280 MB and the server came back to 205 MB (docs/experiments.md). The
numbers computed do not change.
"""

from __future__ import annotations

import ctypes

# mallopt's parameters (malloc.h).
_M_MMAP_THRESHOLD = -3
_M_ARENA_MAX = -8

MMAP_THRESHOLD = 128 << 10  # glibc's own starting value, held there
ARENAS = 2


def give_back_freed_memory() -> bool:
    """Ask the C library to hand large freed blocks back at once and to share two arenas between threads;
    whether it could (not glibc: no, nothing changes). Call it before the server's threads start."""
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)
    if mallopt is None:
        return False
    return all(
        mallopt(option, value) == 1
        for option, value in ((_M_MMAP_THRESHOLD, MMAP_THRESHOLD), (_M_ARENA_MAX, ARENAS))
    )
