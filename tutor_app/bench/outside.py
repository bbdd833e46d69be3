"""Voice to voice timed outside the app, on the virtual sound card (scripts/virtual-audio.sh).

What the learner says (the monitor of the virtual microphone `micsrc`) and what the tutor
plays (the monitor of the virtual speaker `spk`) are looped by PulseAudio into the two
channels of one null sink, `probe`, and `parecord` records its monitor: one file, one
clock, nothing of the app's own stamps or of the latencies PortAudio reports. The two
loopbacks have the same target latency; measured here with a click played into both
sinks at once (a combine sink), the channels agreed within 3 ms on the first click and
within 0-2 samples after.

`voice_to_voice` reads each turn from the file: the learner's clips are the sounding
stretches of the left channel (separated by far longer silences than any pause inside
one), the last voiced sample is the end of the clip's last 32 ms frame the app's VAD calls
speech (as the call's listener decides), and the tutor's first audible sample the first
sample on the right channel after it above -60 dBFS (what Piper's trimmed lead keeps).

`stopped_after` times an interruption the same way (`bench echo`): where a known clip was
played into the microphone - found by cross-correlation, since with the speaker looped back
the microphone's feed also carries the tutor - its first voiced sample, and the start of
the tutor's first silence of STOPPED_QUIET_S after it: when the learner heard it stop.
"""
from __future__ import annotations

import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from tutor_app.core.types import FRAME_SAMPLES, SAMPLE_RATE
from tutor_app.errors import TutorError

if TYPE_CHECKING:
    from numpy.typing import NDArray

AUDIBLE = 1e-3  # -60 dBFS: below it nothing is heard (speech/tts.py LEAD_FLOOR)
CLIP_GAP_S = 2.0  # silence that separates two played clips (a pause inside one is shorter)
LOOP_MS = 20
# The tutor has stopped when it is quiet this long: longer than any gap between its words
# or sentences (Piper's are 0.1-0.4 s); a paused or cut-off tutor is silent for seconds.
STOPPED_QUIET_S = 0.6
# A clip found in the microphone's feed correlates at least this much of the best match
# (the tutor's echo beside it does not correlate with it; another clip does, less).
CLIP_MATCH = 0.6


class FrameVad(Protocol):
    def frame_probabilities(self, samples_16k: NDArray[np.float32]) -> NDArray[np.float32]: ...


@dataclass(frozen=True)
class OutsideTurn:
    last_voiced_s: float  # in the recording
    first_audible_s: float | None  # None: the tutor said nothing after it

    @property
    def voice_to_voice_ms(self) -> float | None:
        if self.first_audible_s is None:
            return None
        return round(1000.0 * (self.first_audible_s - self.last_voiced_s), 1)


def clips_in(channel: NDArray[np.float32], rate: int = SAMPLE_RATE, gap_s: float = CLIP_GAP_S) -> list[tuple[int, int]]:
    """[start, end) of each sounding stretch, stretches closer than `gap_s` joined."""
    loud = np.flatnonzero(np.abs(channel) > AUDIBLE)
    if not loud.size:
        return []
    breaks = np.flatnonzero(np.diff(loud) > int(gap_s * rate))
    starts = np.concatenate([[loud[0]], loud[breaks + 1]])
    ends = np.concatenate([loud[breaks], [loud[-1]]]) + 1
    return [(int(s), int(e)) for s, e in zip(starts, ends)]


def voice_to_voice(learner: NDArray[np.float32], tutor: NDArray[np.float32], vad: FrameVad,
                   threshold: float = 0.5) -> list[OutsideTurn]:
    """Each of the learner's clips in the recording (16 kHz, the two channels) with its
    last voiced sample and the tutor's first audible sample after it (before the next clip)."""
    clips = clips_in(learner)
    turns = []
    for i, (start, end) in enumerate(clips):
        probabilities = vad.frame_probabilities(np.ascontiguousarray(learner[start:end], dtype=np.float32))
        voiced = np.flatnonzero(probabilities >= threshold)
        if not voiced.size:
            continue  # no speech in it (a click, a cough): no turn to time
        last = start + (int(voiced[-1]) + 1) * FRAME_SAMPLES
        until = clips[i + 1][0] if i + 1 < len(clips) else len(tutor)
        heard = np.flatnonzero(np.abs(tutor[last:until]) > AUDIBLE)
        first = (last + int(heard[0])) / SAMPLE_RATE if heard.size else None
        turns.append(OutsideTurn(last / SAMPLE_RATE, first))
    return turns


def clip_starts(channel: NDArray[np.float32], clip: NDArray[np.float32], count: int, vad: FrameVad,
                threshold: float = 0.5) -> list[float]:
    """The first voiced sample (s) of each of the `count` times `clip` (16 kHz, as played)
    is in `channel`, in order; fewer when fewer stand out (CLIP_MATCH)."""
    if count <= 0 or not clip.size or channel.size < clip.size:
        return []
    voiced = np.flatnonzero(vad.frame_probabilities(np.ascontiguousarray(clip, dtype=np.float32)) >= threshold)
    if not voiced.size:
        return []
    size = 1 << int(np.ceil(np.log2(channel.size + clip.size)))
    score = np.abs(np.fft.irfft(np.fft.rfft(channel.astype(np.float64), size)
                                * np.conj(np.fft.rfft(clip.astype(np.float64), size)), size)[:channel.size - clip.size + 1])
    found: list[int] = []
    best = float(score.max())
    while len(found) < count and best > 0:
        at = int(np.argmax(score))
        if score[at] < CLIP_MATCH * best:
            break
        found.append(at)
        score[max(0, at - clip.size):at + clip.size] = 0.0  # one clip there: the next is elsewhere
    first = int(voiced[0]) * FRAME_SAMPLES
    return [(at + first) / SAMPLE_RATE for at in sorted(found)]


def stopped_after(tutor: NDArray[np.float32], at_s: float, lead_s: float = 1.0,
                  quiet_s: float = STOPPED_QUIET_S) -> float | None:
    """When the tutor, playing at `at_s` or starting within `lead_s` around it, went quiet
    for `quiet_s` (s, in the recording); None when it never played there or never stopped."""
    at = int(at_s * SAMPLE_RATE)
    lo = max(0, at - int(lead_s * SAMPLE_RATE))
    loud = np.flatnonzero(np.abs(tutor[lo:at + int(lead_s * SAMPLE_RATE)]) > AUDIBLE)
    if not loud.size:
        return None  # not playing around the learner's start: nothing to stop
    start = max(at, lo + int(loud[0]))
    quiet = np.abs(tutor[start:]) <= AUDIBLE
    run = int(quiet_s * SAMPLE_RATE)
    # Quiet runs: where each stretch of quiet begins and how long it is.
    edges = np.flatnonzero(np.diff(np.concatenate([[0], quiet.astype(np.int8), [0]])))
    for begin, end in zip(edges[::2], edges[1::2]):
        if end - begin >= run:
            return (start + int(begin)) / SAMPLE_RATE
    return None


class OutsideRecorder:
    """The probe sink, its two loopbacks and the recording, for a `with` block; `.path`
    is the recording (16 kHz stereo WAV: left the microphone's feed, right the speaker)."""

    def __init__(self) -> None:
        self._modules: list[str] = []
        self._proc: subprocess.Popen[bytes] | None = None
        self._dir = tempfile.TemporaryDirectory(prefix="tutor-outside-")
        self.path = Path(self._dir.name) / "probe.wav"

    def __enter__(self) -> OutsideRecorder:
        try:
            self._load("module-null-sink", "sink_name=probe", "channels=2", "channel_map=front-left,front-right",
                       f"rate={SAMPLE_RATE}")
            for source, side in (("micsrc.monitor", "front-left"), ("spk.monitor", "front-right")):
                self._load("module-loopback", f"source={source}", "sink=probe", f"latency_msec={LOOP_MS}",
                           "channels=1", f"channel_map={side}", "remix=no",
                           "source_dont_move=true", "sink_dont_move=true")
            self._proc = subprocess.Popen(["parecord", "--device=probe.monitor", "--file-format=wav",
                                           f"--rate={SAMPLE_RATE}", "--channels=2", str(self.path)],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self._wait_flowing()
        except BaseException:
            self.__exit__()
            raise
        return self

    def _wait_flowing(self, timeout_s: float = 10.0) -> None:
        """Until the recording holds its first 100 ms: the first stream opened on a fresh
        sound server can take a second or more, and a clip played before then is lost."""
        enough = 44 + int(0.1 * SAMPLE_RATE) * 2 * 2  # the WAV header, 100 ms of 16-bit stereo
        deadline = time.monotonic() + timeout_s
        while not (self.path.exists() and self.path.stat().st_size >= enough):
            if self._proc is not None and self._proc.poll() is not None:
                raise TutorError(f"parecord of the probe sink ended at once (exit {self._proc.returncode})")
            if time.monotonic() > deadline:
                raise TutorError(f"the probe sink's recording did not start within {timeout_s:.0f} s")
            time.sleep(0.02)  # polling a file another process writes: nothing to wait on

    def _load(self, module: str, *arguments: str) -> None:
        from tutor_app.bench.loopback import load_module

        self._modules.append(load_module(module, *arguments, purpose=f"{module} for the outside timing"))

    def stop(self) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """Ends the recording: (learner channel, tutor channel)."""
        import soundfile as sf

        self._end_recording()
        data, rate = sf.read(str(self.path), dtype="float32", always_2d=True)
        if rate != SAMPLE_RATE or data.shape[1] != 2:
            raise TutorError(f"the outside recording is {rate} Hz x {data.shape[1]}, not {SAMPLE_RATE} Hz stereo")
        return np.ascontiguousarray(data[:, 0]), np.ascontiguousarray(data[:, 1])

    def _end_recording(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.send_signal(signal.SIGINT)  # parecord finishes a valid WAV
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def __exit__(self, *exc: object) -> None:
        self._end_recording()
        for module in reversed(self._modules):
            subprocess.run(["pactl", "unload-module", module], check=False, capture_output=True)
        self._modules.clear()
        self._dir.cleanup()
