"""Speech to text with faster-whisper, behind `SpeechToText`.

Silence and noise never reach Whisper (it invents text on them): our Silero VAD runs
first, a clip without speech gives an empty Transcript, and Whisper sees only the speech
spans, joined end to end, with timestamps mapped back to the original clip. We run the
VAD ourselves rather than `vad_filter=True` because the app already holds that VAD warm
for the live path, the file path then uses the very same rules as the microphone
(settings.speech), and an empty result costs no Whisper call at all.

A `BiasList` (speech/bias.py: the names this learner's memories hold) can come with a
clip; it reaches Whisper as `bias_mode` says (see SttOptions).

`transcribe_part` is the same decode with a prompt (the words before the audio): the
streaming transcriber (speech/streaming.py) decodes the growing turn with it. Its `stop`
(an Event) ends a decode nobody wants any more - a live call's guess at a pause the
learner talked on through - at the next stage (the VAD, the encoder, the decoder, the
word alignment) with `DecodeStopped`, so the guess at the real end need not wait for it.
Its `encoded` (an Event) is set once the encoder has run - or the decode ended without
it: from then on the decode is one thread (the decoder's), and a second model may have
the other core (the live call's end-of-turn judge waits for it: call/listen/judge.py).

The encoder normally sees a fixed 30 s window whatever the length of the speech (most of
the cost of a short turn). `SttOptions.encoder_window_s` below 30 gives it a window sized
to the speech instead (CTranslate2 accepts shorter mel features); see the option.

The model is loaded once and reused; `transcribe` consumes faster-whisper's lazy
segment generator itself, so all decoding happens on the caller's (worker) thread.
"""
from __future__ import annotations

import bisect
import functools
import logging
import os
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from tutor_app.core.types import SAMPLE_RATE, AudioClip, Segment, SpeechSpan, Transcript, Word
from tutor_app.errors import AudioInputError, TutorError
from tutor_app.speech.audiofile import MAX_SECONDS, load_audio, to_mono_16k
from tutor_app.speech.bias import BiasList, echoes_list, snap_names
from tutor_app.speech.vad import speech_and_pauses

if TYPE_CHECKING:
    from tutor_app.core.protocols import VoiceActivity
    from tutor_app.registry.manifest import ModelRegistry
    from tutor_app.settings import Settings, SpeechSettings
    from tutor_app.speech.devices import ComputeChoice

log = logging.getLogger(__name__)


class DecodeStopped(Exception):
    """A decode was stopped (its `stop` Event set) before it was done: nobody wants its words."""


@dataclass(frozen=True)
class SttOptions:
    language: str = "en"
    beam_size: int = 2  # 1-2 keeps tiny.en fast on a CPU; 5 buys little on short turns
    # Word timings feed the call report's fluency (tutor/fluency.py), and their
    # probabilities the not-English gate (tutor/heard.py); the alignment costs ~18 ms.
    word_timestamps: bool = True
    max_seconds: float = MAX_SECONDS
    # The decoder's threads. One: Whisper tiny.en's decoder takes a step per token, each
    # too small to share (the hand-offs cost more than they save). 0 = CTranslate2's default.
    cpu_threads: int = 1
    # The encoder's threads (one pass over the window, a large product that does share):
    # on the CPU it gets its own CTranslate2 instance of the model (~40 MB more) when this
    # differs from `cpu_threads`. 0: the machine's cores, up to 4. Measured on 2 cores
    # (the 7 shared clips, numpy's BLAS on one thread): 224 ms per clip (median) with 2
    # encoder threads and 1 decoder thread, 244 ms with 1 and 1, 249 ms with CTranslate2's
    # default for both; the same words.
    encoder_threads: int = 0
    # How a bias list reaches Whisper: "hotwords" (faster-whisper puts the terms in the
    # previous-text slot of every 30 s window; ignored when a prefix is given), "prompt"
    # (initial_prompt: the same slot, first window only) or "off" (the list is ignored).
    # Both get about the same names right (`tutor-app bench names`), but with
    # initial_prompt Whisper sometimes ran on past the speech after a temperature
    # fallback ("... For now, we're going to take a look at ..."; shared-clip WER 2.6 % ->
    # 6.1 % in some runs); with hotwords it never did. Near misses of a listed name are
    # then put right (bias.snap_names).
    bias_mode: str = "hotwords"
    # The encoder's window: 30 s is Whisper's own (the speech padded to 30 s). Less gives a
    # window of the speech plus `encoder_margin_s`, at least `encoder_window_s` long: the
    # encoder's cost falls with it, but Whisper was trained on 30 s windows and, without
    # enough padding after the speech, loops ("Go forward 10 meters. Go forward ...") -
    # so a decode that looks looped (words per second, compression ratio) is done again
    # on the full window. `tutor-app bench stt-stream` measures both. The WER moves
    # erratically with the window (one or two hard clips flip); 6 s after the speech, at
    # least 10 s, was as good as any setting tried and better than 2 s after it at least
    # 15 s (4 s after the speech: a 10 s clip got "Thank you very much." added).
    encoder_window_s: float = 30.0
    encoder_margin_s: float = 6.0
    # faster-whisper decodes again, *sampling* at rising temperatures, when the greedy
    # decode's mean log-probability is under `fallback_logprob` (its default is -1.0). A
    # sample's log-probabilities come from the temperature-sharpened distribution, so
    # unsure speech comes back looking sure: espeak's Korean once came back at -0.71 and
    # passed the not-English gate (tutor/heard.py), in one CI run out of many. Unsure
    # speech is the gate's to judge, on the greedy decode, the same every time (and a
    # turn no longer waits for up to five more decodes). None: no such fallback; a
    # decode that loops (compression ratio) still falls back, and its sample is marked
    # (`Segment.sampled`): the gate does not take its words as understood.
    fallback_logprob: float | None = None
    # faster-whisper drops a segment whose no-speech probability is over this unless its
    # log-probability is over `fallback_logprob`. None: never dropped here - our VAD
    # already cut the silence, and the gate's no-speech rule reads the same signal.
    no_speech_threshold: float | None = None

    @classmethod
    def from_settings(cls, speech: SpeechSettings) -> "SttOptions":
        return cls(language=speech.language or "en")


class WhisperStt:
    """Satisfies `SpeechToText`."""

    def __init__(self, model_dir: Path | str, vad: VoiceActivity, device: str = "cpu", compute_type: str = "int8",
                 options: SttOptions | None = None) -> None:
        self.options = options or SttOptions()
        self.vad = vad
        self.device = device
        self.compute_type = compute_type
        started = time.perf_counter()
        try:
            # ctranslate2 wants a str: a Path raises a TypeError. (faster_whisper is untyped: Any.)
            self._model = windowed_model_class()(str(model_dir), device=device, compute_type=compute_type,
                                                 cpu_threads=self.options.cpu_threads)
            threads = encoder_threads(self.options)
            if device == "cpu" and threads != self.options.cpu_threads:
                import ctranslate2

                self._model.encoder = ctranslate2.models.Whisper(str(model_dir), device="cpu",
                                                                 compute_type=compute_type, intra_threads=threads)
        except (RuntimeError, ValueError, OSError) as exc:
            raise TutorError(f"cannot load the Whisper model from {model_dir}: {exc}") from None
        self.load_seconds = time.perf_counter() - started
        self._lock = threading.Lock()  # one decode at a time: the cores are the limit anyway

    def transcribe(self, audio: AudioClip | Path | str, bias: BiasList | None = None) -> Transcript:
        """Transcribe a clip (any rate, mono) or a file; silence/noise -> empty text.
        `bias`: names and terms to expect (speech/bias.py)."""
        return self._transcribe_samples(self._samples(audio), bias)

    def transcribe_part(self, audio: NDArray[np.float32], start: int = 0, prompt: str = "",
                        bias: BiasList | None = None, window_s: float | None = None,
                        stop: threading.Event | None = None, encoded: threading.Event | None = None) -> Transcript:
        """Satisfies `PartTranscriber`: the words of 16 kHz mono `audio` from sample `start`
        on, which follow the words `prompt` (Whisper's previous-text slot, so they join).
        The VAD sees the whole of `audio` (a word right after `start` is judged in its
        context: alone, a soft "ask" after a pause was no speech); times, pauses and speech
        seconds are the whole audio's. Word timings always; empty audio -> "". `window_s`:
        this decode's `SttOptions.encoder_window_s` (None: the options'). `stop` set: raises
        DecodeStopped at the next stage (see the module). `encoded`: set once the encoder
        has run, or the decode ended without it."""
        try:
            samples = np.asarray(audio, dtype=np.float32).reshape(-1)
            if samples.size == 0:
                return Transcript("", self.options.language, 0.0)
            return self._transcribe_samples(samples, bias, prompt.strip(), words=True, start=start, window_s=window_s,
                                            stop=stop, encoded=encoded)
        finally:
            if encoded is not None:
                encoded.set()  # no encoder ran (no speech, stopped, failed), or it ran: either way done

    def _transcribe_samples(self, samples: NDArray[np.float32], bias: BiasList | None, prompt: str = "",
                            words: bool = False, start: int = 0, window_s: float | None = None,
                            stop: threading.Event | None = None, encoded: threading.Event | None = None) -> Transcript:
        if self.options.bias_mode == "off":
            bias = None
        seconds = len(samples) / SAMPLE_RATE
        stop_if_asked(stop)
        clip = speech_and_pauses(self.vad, samples)
        spans, pauses = clip.spans, clip.pauses
        if not spans:
            return Transcript("", self.options.language, seconds)
        voiced = round(sum(span.end - span.start for span in spans), 3)
        spans = spans_from(spans, start / SAMPLE_RATE) if start > 0 else spans
        if not spans:  # speech only before `start`: nothing to decode, the pauses still count
            return Transcript("", self.options.language, seconds, [], pauses, voiced)
        speech, offsets = join_spans(samples, spans)
        with self._lock:
            self._model.stop = stop  # read by the model's stages (windowed_model_class)
            self._model.encoded = encoded
            try:
                segments = self._decode_windowed(speech, bias, prompt, words, window_s)
                if bias and echoes_list(" ".join(s.text for s in segments), bias):
                    # The list read back, not speech: decode again without it.
                    log.info("the transcript echoed the bias list; decoded again without it")
                    segments = self._decode_windowed(speech, None, prompt, words, window_s)
            finally:
                self._model.stop = self._model.encoded = None
        segments = without_soundless_tail(segments, len(speech) / SAMPLE_RATE, clip.voice_at_end)
        segments = [snap_segment(remap_segment(s, offsets), bias) for s in segments]
        text = " ".join(s.text for s in segments if s.text).strip()
        return Transcript(text, self.options.language, seconds, segments, pauses, voiced)

    def warm_up(self) -> None:
        """One tiny decode so the first real turn does not pay for lazy initialisation."""
        with self._lock:
            self._decode_windowed(np.zeros(SAMPLE_RATE, dtype=np.float32), None, "", False)

    # -- internals -----------------------------------------------------------------------
    def _samples(self, audio: AudioClip | Path | str) -> NDArray[np.float32]:
        if isinstance(audio, (str, Path)):
            clip = load_audio(audio, max_seconds=self.options.max_seconds)
            return clip.samples
        if not isinstance(audio, AudioClip):
            raise AudioInputError(f"expected an AudioClip or a file path, got {type(audio).__name__}")
        if audio.samples is None or np.asarray(audio.samples).size == 0:
            raise AudioInputError("the audio is empty (0 samples)")
        if audio.seconds > self.options.max_seconds:
            raise AudioInputError(f"audio is {audio.seconds / 60:.1f} min long; the limit is "
                                  f"{self.options.max_seconds / 60:.0f} min")
        samples = to_mono_16k(audio)
        if not np.all(np.isfinite(samples)):
            raise AudioInputError("the audio contains NaN or infinite samples")
        return samples

    def _decode_windowed(self, speech: NDArray[np.float32], bias: BiasList | None, prompt: str,
                         words: bool, window_s: float | None = None) -> list[Segment]:
        """`_decode` on the encoder window the options (or `window_s`) ask for; a short
        window's decode that looks looped is done again on the full 30 s window."""
        options = self.options if window_s is None else replace(self.options, encoder_window_s=window_s)
        frames = window_frames(len(speech) / SAMPLE_RATE, options)
        # Every decode has the tokens cap: a hum over the tutor that Whisper loops on
        # ("Mm-hmm. Mm-hmm. ...", then its temperature fallbacks) took over 5 s uncapped,
        # and the listener gave up on its words.
        cap = max_tokens(len(speech))
        if frames is None:
            return self._decode(speech, bias, prompt, words, max_new_tokens=cap)
        self._model.window_frames = frames
        try:
            segments = self._decode(speech, bias, prompt, words, max_new_tokens=cap)
        finally:
            self._model.window_frames = None
        if looped(segments, len(speech) / SAMPLE_RATE):
            log.info("a short-window decode looked looped; decoded again on the full window")
            segments = self._decode(speech, bias, prompt, words, max_new_tokens=cap)
        return segments

    def _decode(self, speech: NDArray[np.float32], bias: BiasList | None = None, prompt: str = "",
                words: bool = False, max_new_tokens: int | None = None) -> list[Segment]:
        o = self.options
        arguments: dict[str, Any] = dict(bias_arguments(bias, o.bias_mode))
        if prompt:
            # The words before this audio; in "prompt" bias mode the names come first.
            arguments["initial_prompt"] = (arguments.get("initial_prompt", "") + " " + prompt).strip()
        if max_new_tokens is not None:
            arguments["max_new_tokens"] = max_new_tokens
        segments, _info = self._model.transcribe(
            speech,
            language=o.language or None,
            beam_size=o.beam_size,
            word_timestamps=o.word_timestamps or words,
            vad_filter=False,  # done above with our VAD
            # Turns are short and independent: conditioning on earlier text only helps
            # Whisper repeat itself when it goes wrong.
            condition_on_previous_text=False,
            log_prob_threshold=o.fallback_logprob,
            no_speech_threshold=o.no_speech_threshold,
            **arguments,
        )
        out = []
        for seg in segments:  # the generator decodes lazily: consume it here
            timed = tuple(Word(w.start, w.end, w.word, w.probability) for w in (seg.words or ()))
            out.append(Segment(seg.start, seg.end, seg.text.strip(), timed, float(seg.avg_logprob),
                               float(seg.no_speech_prob), float(seg.compression_ratio),
                               bool(getattr(seg, "temperature", 0.0) or 0.0)))
        return out


@functools.cache
def windowed_model_class() -> Any:
    """faster-whisper's WhisperModel whose encoder sees only the first `window_frames` mel
    frames when that is set (faster-whisper always pads to 3000 frames; CTranslate2's
    Whisper accepts fewer). Word alignment already stops at the speech's own frames."""
    from faster_whisper import WhisperModel
    from faster_whisper.transcribe import get_ctranslate2_storage

    class WindowedWhisperModel(WhisperModel):  # type: ignore[misc]  # untyped library
        window_frames: int | None = None
        encoder: Any = None  # a CTranslate2 Whisper with the encoder's own threads (SttOptions)
        stop: threading.Event | None = None  # this decode's (WhisperStt.transcribe_part)
        encoded: threading.Event | None = None  # this decode's: set after the (first) encoder pass

        # Each stage first sees whether the decode is still wanted.
        def generate_with_fallback(self, *args: Any, **kwargs: Any) -> Any:
            stop_if_asked(self.stop)
            return super().generate_with_fallback(*args, **kwargs)

        def add_word_timestamps(self, *args: Any, **kwargs: Any) -> Any:
            stop_if_asked(self.stop)
            return super().add_word_timestamps(*args, **kwargs)

        def encode(self, features: Any) -> Any:
            stop_if_asked(self.stop)
            if self.window_frames:
                features = features[..., : self.window_frames]
            try:
                if self.encoder is None:
                    return super().encode(features)
                if features.ndim == 2:
                    features = np.expand_dims(features, 0)
                return self.encoder.encode(get_ctranslate2_storage(features), to_cpu=False)
            finally:
                if self.encoded is not None:
                    self.encoded.set()

    return WindowedWhisperModel


def stop_if_asked(stop: threading.Event | None) -> None:
    if stop is not None and stop.is_set():
        raise DecodeStopped()


def encoder_threads(options: SttOptions) -> int:
    """The encoder's CPU threads: `options.encoder_threads`, 0 being the cores (up to 4)."""
    if options.encoder_threads > 0:
        return options.encoder_threads
    return max(1, min(4, os.cpu_count() or 1))


MEL_FRAMES_PER_SECOND = 100  # Whisper's hop: 160 samples at 16 kHz
FULL_WINDOW_S = 30.0


def window_frames(speech_s: float, options: SttOptions) -> int | None:
    """Mel frames the encoder sees for `speech_s` of speech; None: the full 30 s window."""
    if options.encoder_window_s >= FULL_WINDOW_S:
        return None
    seconds = max(options.encoder_window_s, speech_s + options.encoder_margin_s)
    if seconds >= FULL_WINDOW_S:
        return None
    return int(round(seconds * MEL_FRAMES_PER_SECOND))


# A short window's decode that holds more than this is Whisper looping, not speech: fast
# English is ~4 words/s; the tokens cap (~3 per word, plus the timestamps) bounds the cost
# of a loop before it is caught.
MAX_WORDS_PER_SECOND = 6.0
MAX_COMPRESSION_RATIO = 2.4  # faster-whisper's own threshold for a repetitive decode


def max_tokens(samples: int) -> int:
    return 16 + int(MAX_WORDS_PER_SECOND * 3 * samples / SAMPLE_RATE)


def looped(segments: list[Segment], speech_s: float) -> bool:
    words = sum(len(s.text.split()) for s in segments)
    return (words > 2 + MAX_WORDS_PER_SECOND * speech_s
            or any(s.compression_ratio > MAX_COMPRESSION_RATIO for s in segments))


# Whisper, trained on subtitles, ends some decodes with a stock line that was never said
# ("Thank you for watching.", "Thank you very much.", "Thank you."), decoded from the last
# fraction of a second after the speech. Word alignment finds no sound for such a line: at
# least half its words are squeezed to nothing at the audio's very end (measured: three of
# four, one of two; the first word's probability 0.0). A word of real speech, even a last
# short one, gets frames of its own - unless the audio was cut in the middle of it (the
# words so far over the tutor, or a turn cut at its last voiced frame): then the tail goes
# only when Whisper doubts it too ("Thanks for watching!" after a barge-in's "Please." at
# a mean log-probability of -1.45; the real words before it -0.3 to -0.6).
SQUEEZED_WORD_S = 0.02
AUDIO_END_S = 0.06  # how near the audio's end a squeezed word lies
DOUBTED_LOGPROB = -1.0  # Whisper's own line for an unsure decode (its temperature fallback)


def without_soundless_tail(segments: list[Segment], audio_s: float, voice_at_end: bool = False) -> list[Segment]:
    """`segments` without the trailing ones that have at least half their words squeezed to
    nothing at the end of the `audio_s`-second audio (times in that audio); when the audio
    ends in voice (`voice_at_end`), only those Whisper doubts as well. Segments without word
    timings are kept: there is nothing to judge by."""
    kept = list(segments)
    while kept and soundless(kept[-1], audio_s) and (not voice_at_end or kept[-1].avg_logprob < DOUBTED_LOGPROB):
        log.info("dropped a segment that had no sound of its own at the end of the audio")
        kept.pop()
    return kept


def soundless(segment: Segment, audio_s: float) -> bool:
    words = segment.words
    squeezed = [w for w in words if w.end - w.start < SQUEEZED_WORD_S and w.end >= audio_s - AUDIO_END_S]
    return bool(squeezed) and 2 * len(squeezed) >= len(words)


def bias_arguments(bias: BiasList | None, mode: str) -> dict[str, str]:
    """faster-whisper keyword arguments for a bias list."""
    if not bias or mode == "off":
        return {}
    if mode == "prompt":
        return {"initial_prompt": bias.text + "."}
    if mode == "hotwords":
        return {"hotwords": bias.text}
    raise ValueError(f"unknown STT bias mode {mode!r}")


def snap_segment(seg: Segment, bias: BiasList | None) -> Segment:
    """A segment with near misses of the bias list's names put right (bias.snap_names)."""
    if not bias:
        return seg
    words = tuple(replace(w, word=snap_names(w.word, bias)) for w in seg.words)
    return replace(seg, text=snap_names(seg.text, bias), words=words)


def join_spans(samples: NDArray[np.float32],
               spans: list[SpeechSpan]) -> tuple[NDArray[np.float32], list[tuple[float, float]]]:
    """Speech spans end to end, plus (joined_start_s, original_start_s) per span."""
    pieces, offsets, position = [], [], 0
    for span in spans:
        a = max(0, int(span.start * SAMPLE_RATE))
        b = min(len(samples), int(span.end * SAMPLE_RATE))
        if b <= a:
            continue
        offsets.append((position / SAMPLE_RATE, a / SAMPLE_RATE))
        pieces.append(samples[a:b])
        position += b - a
    joined = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.float32)
    return joined.astype(np.float32, copy=False), offsets


def spans_from(spans: list[SpeechSpan], start_s: float) -> list[SpeechSpan]:
    """The spans' parts after `start_s`."""
    return [SpeechSpan(max(s.start, start_s), s.end) for s in spans if s.end > start_s]


def original_time(t: float, offsets: list[tuple[float, float]], is_end: bool = False) -> float:
    """Map a time on the joined speech back to the original clip."""
    if not offsets:
        return t
    starts = [joined for joined, _ in offsets]
    # An end exactly on a join belongs to the span before it.
    i = (bisect.bisect_left(starts, t) if is_end else bisect.bisect_right(starts, t)) - 1
    i = max(0, i)
    joined, original = offsets[i]
    return round(original + (t - joined), 3)


def remap_segment(seg: Segment, offsets: list[tuple[float, float]]) -> Segment:
    words = tuple(Word(original_time(w.start, offsets), original_time(w.end, offsets, True),
                       w.word, w.probability) for w in seg.words)
    return replace(seg, start=original_time(seg.start, offsets), end=original_time(seg.end, offsets, True),
                   words=words)


def load_stt(settings: Settings, registry: ModelRegistry, devices: ComputeChoice,
             vad: VoiceActivity | None = None) -> WhisperStt:
    """The app's STT: settings.speech.stt_model on the device chosen by `select_compute`."""
    if vad is None:
        from tutor_app.speech.vad import load_vad

        vad = load_vad(settings, registry)
    model_dir = registry.path(settings.speech.stt_model)
    options = SttOptions.from_settings(settings.speech)
    try:
        return WhisperStt(model_dir, vad, devices.device, devices.compute_type, options)
    except TutorError:
        if devices.device != "cuda":
            raise
        # A GPU that passed the probe can still fail to load the model (memory): keep working.
        log.warning("Whisper failed on CUDA; falling back to CPU int8", exc_info=True)
        return WhisperStt(model_dir, vad, "cpu", "int8", options)
