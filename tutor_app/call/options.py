"""The options of a live call: one tree, grouped as a learner would think of it.

- `endpointing`: when the learner's turn starts and when it is over (the voice that starts
  it, the short pause that asks the end-of-turn judge, the thinking time, the plain
  silence when there is no judge);
- `speculation`: the tutor starting its reply before the turn is certain, and when that
  reply becomes the tutor's for good;
- `interruption`: talking over the tutor (ducking it, the words and the voice that stop
  it, backchannels that do not);
- `echo`: how the tutor's own voice is kept out of the microphone (headset, speaker,
  gated);
- `recognition`: how the learner's words are recognised (while they speak, or at the
  end; Whisper's encoder window).

Beside them, the microphone's device-loss timing. `LoopOptions.from_settings` is the one
place the settings become these values. The rules' own constants (what a backchannel is:
call/listen/turn_taking.py) and the signal processing's parameters (speech/double_talk.py,
speech/aec.py) are not options.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from tutor_app.core.types import FRAME_MS
from tutor_app.speech.echo import HEADSET, resolve_mode
from tutor_app.speech.segmenter import SegmenterOptions

if TYPE_CHECKING:
    from tutor_app.settings import Settings
    from tutor_app.speech.sound_devices import DeviceInfo


def frames(ms: float) -> int:
    """Whole VAD frames (32 ms) covering `ms`; at least one for a positive duration."""
    return max(1, int(round(ms / FRAME_MS))) if ms > 0 else 0


@dataclass(frozen=True)
class EndpointingOptions:
    """When the learner's turn starts and when it is over (call/listen/endpointing.py)."""

    threshold: float = 0.5  # the VAD's speech probability for a frame of voice
    min_speech_ms: int = 250  # this much voice starts a turn (shorter: a cough, a click)
    preroll_ms: int = 300  # a turn starts this long before its first voiced frame (the quiet onset)
    max_turn_ms: int = 30_000  # Whisper's window
    # Start STT this long into a silence that may end the turn: if the turn does end there,
    # the transcript is (nearly) ready; if the learner goes on, the guess is dropped.
    # 0 = at the end-of-turn check. One frame: the decode (~290 ms on 2 cores) is what
    # the answer waits for; 32 instead of 64 ms gave `bench turns` 931 -> 908 ms p50 with
    # no pause clip cut (a guess the learner talks on through is dropped unheard).
    early_stt_ms: int = 32
    # Also ask at a voiced frame whose probability fell under `threshold` (still over the
    # lower one a talking learner keeps): on 4 of the 7 shared clips the voice's last frame
    # is such a frame, and asked there, the guess decodes the very span the first silent
    # frame would ask for, 32 ms sooner. When the voice goes on, the guess is dropped like
    # any other. Not with `early_stt_ms` 0.
    fading_stt: bool = True
    # Ask the end-of-turn judge this long into the silence: it hears the same span (the
    # voice up to its last voiced frame) whenever it is asked, so asking before `check_ms`
    # takes its ~50 ms (Smart Turn on one thread) off the answer's path; its verdict still
    # decides only from `check_ms` on. Not at the early guess: beside Whisper's encoder
    # (two threads on two cores) it slowed the decode by ~40 ms; three frames after it,
    # once the encoder is done, by nothing. It also waits for the encoder now (the STT
    # worker says when: call/transcripts.py), which the frames only guess at: on a slow
    # decode the encoder still ran at 128 ms of silence. 0 = at `check_ms`. Since it waits
    # for the encoder itself, 96 costs the decode nothing.
    judge_ms: int = 96
    # Silence from which the end-of-turn judge's verdict decides. A reply it starts is
    # held until `SpeculationOptions.earliest_ms` and retracted if the voice comes back, so
    # this moves no turn's end, only how soon the model is asked: 160 instead of 200 took
    # ~40 ms off the turns whose words were in by then (bench call: 3 of 12).
    check_ms: int = 160
    # Quiet that ends speech over the tutor (its words then decide: call/listen/
    # interruption.py) and a short stretch of it (call/listen/overlap.py). Not `check_ms`:
    # there a pause ends what is heard, not only starts a reply that voice can take back.
    over_tutor_ms: int = 200
    thinking_ms: int = 2000  # longest wait through a pause the judge called unfinished (call/pauses.py)
    # A full-looking sentence the audio model doubts (a `likely` verdict: TTS voices and many
    # learners end with a flat tone) ends after a share of the thinking time: waiting it all
    # made half the finished turns of `bench turns` wait 2 s; half of it still lets a
    # learner think after a clause.
    sentence_share: float = 0.5
    sentence_min_ms: int = 800
    vad_silence_ms: int = 600  # no judge (its model could not load): this much silence ends the turn
    min_pause_ms: int = 250  # within-turn pauses shorter than this are not counted (word gaps)
    judge: bool = False  # an end-of-turn judge decides (set by the call loop when one loaded)

    @property
    def sentence_wait_ms(self) -> int:
        """Silence after which a `likely` turn ends (never longer than the thinking time)."""
        return min(self.thinking_ms, max(self.sentence_min_ms, round(self.thinking_ms * self.sentence_share)))

    @property
    def silence_ms(self) -> int:
        """The silence that ends a turn whatever else was decided: the thinking time when a
        judge decides earlier, else the VAD-only rule."""
        return self.thinking_ms if self.judge else self.vad_silence_ms

    def segmenter(self) -> SegmenterOptions:
        """The segmenter's own values (speech/segmenter.py)."""
        return SegmenterOptions(threshold=self.threshold, silence_ms=self.silence_ms,
                                min_speech_ms=self.min_speech_ms, preroll_ms=self.preroll_ms,
                                max_utterance_ms=self.max_turn_ms)


@dataclass(frozen=True)
class SpeculationOptions:
    """The tutor's reply started on a turn judged complete, before the turn is certain."""

    enabled: bool = True
    # Silence after which a speculative reply is the tutor's for good (committed), unless
    # its first sample played before; voice before that retracts it without a trace.
    commit_ms: int = 700
    # A `likely` turn (a whole-looking sentence the audio doubts) is answered at once but
    # held: the reply streams and its first sentence is synthesised during the sentence
    # wait, and plays only when the wait is over (voice before retracts it). False: the
    # reply is asked for only when the wait is over.
    hold_likely: bool = True
    # No reply plays before this much silence: a comma pause ("Hello, | I had a job
    # interview": Piper pauses 288 ms) is not the end of a turn. A reply ready sooner is
    # held and released here; voice before that retracts it, decided frame by frame on
    # the audio thread (no race with the speaker). Never binds with a real model (the
    # reply is ready ~600 ms into the silence at the soonest); a CI run once had an
    # instant fake model answer "Hello" in that comma pause.
    earliest_ms: int = 480


@dataclass(frozen=True)
class RecognitionOptions:
    """The call's speech recognition (call/transcripts.py)."""

    # Passes over the growing utterance while the learner speaks (speech/streaming.py):
    # at the end only the words not yet agreed on are decoded. Off by default: on this
    # CPU the end's decode costs about the same (Whisper's encoder window, not the length
    # of the speech, sets it), and a pass still decoding when the learner stops delays it
    # (`tutor-app bench stt-stream`).
    streaming: bool = False
    # The Whisper encoder's window for the call's decodes (SttOptions.encoder_window_s):
    # the speech plus 6 s (SttOptions.encoder_margin_s), at least this long; 30 (or 0):
    # Whisper's own fixed window. 10 s: the end's decode 144-149 ms p50 against 174-190
    # for 15 s with 2 s after the speech, WER 7.55 % against 7.78 % over the shared and
    # pause clips (`tutor-app bench stt-stream --window 10 --margin 6`; see the README).
    window_s: float = 10.0

    @property
    def window(self) -> float | None:
        """The window to ask for, None for Whisper's own."""
        return self.window_s if 0 < self.window_s < 30 else None


@dataclass(frozen=True)
class InterruptionOptions:
    """Talking over the tutor (call/listen/interruption.py, call/listen/overlap.py)."""

    enabled: bool = True  # the learner may interrupt the tutor (the `barge_in` setting)
    duck_gain: float = 0.3  # the tutor's volume while speech over it is undecided
    # Voice over the tutor after which its words so far decide: an interruption when they
    # ask for the floor (Whisper told to expect a backchannel).
    words_at_ms: int = 320
    # Open speech over the tutor this long (not a hum, not noise, not its echo:
    # call/listen/floor.py) pauses it: the learner takes the floor, the words confirm.
    # Over the tutor AEC3 leaves Piper's "Yeah." / "Okay." / "Right." 30-320 ms of voice,
    # mostly too little to confirm at all; the "Sorry," that opens an interruption gets
    # here before its comma (352 ms waited past it: bench echo stopped 665 vs 324 ms p50).
    # A knife edge: with 8 frames of "Sorry," heard the tutor pauses on the next word
    # (~600 ms). About a second into a reply the VAD hears 9 (13 of 14 in `bench echo`); as
    # the reply starts it hears 7-8 in about half the runs (the word's start lost, most
    # likely to AEC3, its echo path not learnt yet). 256 takes more of them but also
    # "Yeah." (3 of 20 false stops).
    floor_ms: int = 288
    # Longer than this is never a backchannel: the tutor pauses whatever it sounds like (a
    # looped-back "Mm-hmm." has ~480 ms of voice) - unless the echo check calls it the
    # tutor's own echo (call/listen/interruption.py).
    backchannel_max_ms: int = 900
    # Paused, the learner talks on this long over the quiet (after the echo's tail, ~100 ms:
    # call/listen/interruption.py): their turn, the tutor's ends. Not shorter: an "mm-hmm"
    # the echo lengthened must end first, and its words resume the tutor.
    talk_on_ms: int = 480
    # A resumed tutor backs up to the quietest 32 ms (a gap between words) in this much of
    # what it played before the pause (speech/playback.py Player.resume).
    resume_back_ms: int = 600
    # A stretch too short to confirm as speech over the tutor is still a backchannel
    # candidate from this much voice on, when the linear echo removal takes
    # `double_talk_db` less off it than off the tutor alone (a second voice).
    backchannel_min_ms: int = 32
    double_talk_db: float = 6.0
    # Gated mode (no echo canceller: call/listen/echo_gate.py): speech over the tutor stops
    # it only when it is this loud (an absolute floor, and this many times the tutor's
    # echo) for this long (a door slam or a laugh is shorter), at this speech probability.
    loud_min_rms: float = 0.08
    loud_over_echo: float = 3.0
    loud_min_ms: int = 400
    loud_probability: float = 0.5


@dataclass(frozen=True)
class EchoOptions:
    """How the tutor's voice is kept out of the microphone (the modes: speech/echo.py)."""

    mode: str = HEADSET  # headset | speaker (echo cancelled) | gated (microphone shut while the tutor speaks)
    tail_ms: int = 400  # gated: the room keeps ringing this long after playback stops


@dataclass(frozen=True)
class LoopOptions:
    endpointing: EndpointingOptions = field(default_factory=EndpointingOptions)
    speculation: SpeculationOptions = field(default_factory=SpeculationOptions)
    interruption: InterruptionOptions = field(default_factory=InterruptionOptions)
    echo: EchoOptions = field(default_factory=EchoOptions)
    recognition: RecognitionOptions = field(default_factory=RecognitionOptions)
    stall_s: float | None = 3.0  # no microphone block this long = the device is gone
    reopen_every_s: float = 1.0  # while paused, try the microphone again this often
    give_up_s: float = 120.0  # then stop trying (typed turns still work)
    warm_up: bool = True  # load/warm STT and TTS before the first turn

    @classmethod
    def from_settings(cls, settings: Settings, devices: Sequence[DeviceInfo] | None = None,
                      canceller: bool = True, why_not: str = "", engine: Any = None,
                      **overrides: Any) -> "LoopOptions":
        """The call's options from the settings. `devices` (sound_devices.list_devices)
        decide the echo mode when it is "auto"; `canceller`: whether the echo canceller
        runs (else speaker mode becomes gated, `why_not` says why); `engine`: its memory
        holds the learner's past pauses, which the thinking time follows (call/pauses.py)."""
        from tutor_app.call.pauses import thinking_ms

        speech = settings.speech
        return cls(endpointing=EndpointingOptions(min_speech_ms=speech.min_speech_ms, preroll_ms=speech.preroll_ms,
                                                  vad_silence_ms=speech.silence_ms,
                                                  thinking_ms=thinking_ms(settings, engine)),
                   interruption=InterruptionOptions(enabled=bool(speech.barge_in)),
                   echo=EchoOptions(mode=resolve_mode(speech.audio_mode, devices or [], canceller, why_not)[0]),
                   recognition=RecognitionOptions(streaming=bool(speech.stt_streaming),
                                                  window_s=float(speech.stt_call_window_s)),
                   **overrides)

    def with_judge(self, judge: bool) -> "LoopOptions":
        """Whether an end-of-turn judge decides (the segmenter's own silence window follows)."""
        return replace(self, endpointing=replace(self.endpointing, judge=judge))
