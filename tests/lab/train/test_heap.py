"""Freed memory kept for reuse while training (lab/train/heap.py)."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

# Temporaries of a few MB made and dropped together, as a training step's batches are; prints the page
# faults they cost after the first time.
_BURSTS = """
import resource, sys
import numpy as np
from lab.train.heap import keep_freed_memory
if sys.argv[1] == "keep":
    assert keep_freed_memory()
def burst():
    a = np.ones(5 << 17)
    b = a * 2
    return float((b + a)[0])
burst()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):
    burst()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _faults(mode: str) -> int:
    done = subprocess.run([sys.executable, "-c", _BURSTS, mode], capture_output=True, text=True, check=True)
    return int(done.stdout)


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt's settings are glibc's")
def test_freed_memory_is_reused_not_faulted_in_again() -> None:
    # 20 bursts of three 5 MB arrays touch some 75,000 pages: given back each time, each is faulted anew.
    plain, kept = _faults("plain"), _faults("keep")
    assert kept < 500
    assert plain > 20 * kept + 5000
