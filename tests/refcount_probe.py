"""Counts references to None around many calls of a native binding.

A binding that returns None without taking a reference to it lowers `None`'s count on
every call; on Python 3.11 (None not yet immortal) the process then dies with "Fatal
Python error: none_dealloc" after a few thousand calls - minutes into a call, long after
any short test has ended (PySide6 6.12.0 did this on every void Qt call).

`none_drop(step, calls)` runs `step` in batches and stops early, before the count can
reach zero, once the drop is unmistakable, then gives the lost references back: the
caller gets a number, not an abort, and can go on measuring the next binding.
"""
from __future__ import annotations

import ctypes
import gc
import sys
from collections.abc import Callable

ALARM = 2_000  # references lost: far past noise, far from None's count (~10k-40k) hitting 0


def none_count() -> int:
    gc.collect()
    return sys.getrefcount(None)


def none_drop(step: Callable[[], object], calls: int, batch: int = 50) -> int:
    """References to None lost over `calls` calls of `step` (after one warm-up call);
    <= 0 means none were lost. Stops early past ALARM."""
    step()  # warm-up: caches, lazily created objects, interned strings
    before = none_count()
    done = 0
    while done < calls:
        for _ in range(min(batch, calls - done)):
            step()
        done += batch
        if before - sys.getrefcount(None) > ALARM:
            break
    lost = before - none_count()
    for _ in range(max(0, lost)):  # heal: what the binding took is given back to None
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(None))
    return lost
