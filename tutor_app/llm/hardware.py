"""What this machine offers a local model: CPU threads, free RAM, free GPU memory.

Each reading is a plain function that answers None when it cannot tell, so the offload
plan and the model recommendation can be tested with any hardware faked in.
"""
from __future__ import annotations

import logging
import os
import shutil
import subprocess
from pathlib import Path

log = logging.getLogger(__name__)


def cpu_threads() -> int:
    """Threads for token generation: the physical cores this process may use, less one.
    Generation is memory-bound, so hyper-threads only add contention; and the call's own
    audio, speech recognition and voice run beside it: llama.cpp's threads meet at a
    barrier every token, so one of them losing its core stalls them all (measured on 2
    busy cores: 2 threads 7 tokens/s, 1 thread 53 tokens/s)."""
    return max(1, cpu_cores() - 1)


def prompt_threads(load: float | None = None, cores: int | None = None) -> int:
    """Threads for reading a prompt (a batch of tokens), asked per request: every physical
    core while the machine is quiet (its 1-minute load average under cores - 0.5), else
    `cpu_threads()`. A batch is enough work per barrier for two threads to share it:
    measured on 2 cores (llama.cpp, OpenMP threads sleeping when they wait: cli.py), 20
    tokens of the bundled model quiet 177 ms with 2 threads and 273 with 1; with one core
    busy elsewhere 310 and 295; with both 490 and 431."""
    cores = cpu_cores() if cores is None else cores
    if load is None:
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):  # no load average (Windows): the safe side
            load = float(cores)
    return cores if load < cores - 0.5 else max(1, cores - 1)


def cpu_cores() -> int:
    """Physical cores this process may run on (logical ones when that is unknown)."""
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count() or 1
    physical = _physical_cores()
    return max(1, min(usable, physical) if physical else usable)


def _physical_cores() -> int | None:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    cores, package, core = set(), "0", None
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "physical id":
            package = value.strip()
        elif key == "core id":
            core = value.strip()
        elif not line.strip() and core is not None:
            cores.add((package, core))
            core = None
    if core is not None:
        cores.add((package, core))
    return len(cores) or None


def available_ram_mb() -> int | None:
    """Memory a new allocation can get without swapping (Linux MemAvailable)."""
    try:
        for line in Path("/proc/meminfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    try:  # other Unixes: free pages (an underestimate; caches count as used)
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // (1 << 20)
    except (AttributeError, ValueError, OSError):
        return None


def free_vram_mb() -> int | None:
    """Free memory of the first NVIDIA GPU (the one llama.cpp fills first), from
    nvidia-smi, which ships with the driver; None without one."""
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, "--query-gpu=memory.free", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=5, check=True).stdout
        return int(out.split()[0])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError) as exc:
        log.info("nvidia-smi gave no free-memory reading (%s)", type(exc).__name__)
        return None


def llama_gpu_build() -> tuple[bool, str]:
    """Was llama.cpp built with a GPU backend (the CUDA build line in the README)?"""
    try:
        import llama_cpp
    except Exception as exc:  # noqa: BLE001 - a broken build means "no llama.cpp", said by the loader
        return False, f"llama.cpp not importable ({type(exc).__name__})"
    try:
        if llama_cpp.llama_supports_gpu_offload():
            return True, "llama.cpp built with GPU offload"
    except Exception:  # noqa: BLE001 - older bindings lack the call
        pass
    return False, "llama.cpp built for the CPU only (README: the CUDA build line)"
