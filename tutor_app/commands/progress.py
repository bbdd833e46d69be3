"""A terminal progress bar for long steps (model installs); quiet when not a terminal."""
from __future__ import annotations

import sys
import time


class ProgressBar:
    def __init__(self, label: str, stream=None) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self._last = 0.0
        self._last_pct = -1

    def __call__(self, done: int, total: int, what: str) -> None:
        now = time.monotonic()
        if total <= 0:
            self._line(f"{self.label}: {what}", final=not self.tty)
            return
        pct = int(100 * done / total)
        if self.tty:
            if now - self._last < 0.1 and done < total:
                return
            self._last = now
            width = 30
            fill = int(width * done / total)
            bar = "#" * fill + "-" * (width - fill)
            self._line(f"{self.label} [{bar}] {pct:3d}% {done / 1e6:7.1f}/{total / 1e6:.1f} MB")
        elif pct // 25 != self._last_pct // 25 or done >= total and self._last_pct < 100:
            self._last_pct = pct
            self._line(f"{self.label}: {pct}%", final=True)

    def _line(self, text: str, final: bool = False) -> None:
        if self.tty:
            self.stream.write("\r\033[K" + text[:120])
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
