"""The STT's encoder window option and the part decode's pure helpers (speech/stt.py)."""
from __future__ import annotations

from tests.unit.test_protocols import seam_problems
from tutor_app.core.types import Segment, SpeechSpan, Word
from tutor_app.speech.ports import PartTranscriber
from tutor_app.speech.stt import SttOptions, looped, max_tokens, spans_from, window_frames, without_soundless_tail


def test_the_default_is_whispers_own_30_s_window() -> None:
    assert window_frames(3.0, SttOptions()) is None
    assert window_frames(3.0, SttOptions(encoder_window_s=30.0)) is None


def test_a_short_window_is_the_speech_plus_its_margin_at_least_the_floor() -> None:
    options = SttOptions(encoder_window_s=10.0, encoder_margin_s=2.0)
    assert window_frames(3.0, options) == 1000  # the floor
    assert window_frames(9.5, options) == 1150  # 9.5 s + 2 s
    assert window_frames(28.5, options) is None  # past 30 s: the full window


def test_a_decode_with_more_words_than_speech_can_hold_is_a_loop() -> None:
    said = Segment(0, 2, "Go forward 10 meters.")
    assert not looped([said], 2.0)
    assert looped([Segment(0, 2, "Go forward 10 meters. " * 6)], 2.0)
    assert looped([Segment(0, 2, "go go", compression_ratio=3.1)], 2.0)
    assert max_tokens(16000 * 2) > 3 * len(said.text.split())


def timed(text: str, *times: tuple[float, float]) -> Segment:
    words = tuple(Word(a, b, f" {w}", 0.9) for w, (a, b) in zip(text.split(), times))
    return Segment(times[0][0], times[-1][1], text, words)


def test_a_stock_line_with_no_sound_of_its_own_at_the_end_is_dropped() -> None:
    """Whisper's "Thank you very much." after a 10.16 s utterance, as it was timed: its
    words squeezed to nothing at the last frame."""
    said = timed("flower-fattened sauce.", (8.68, 9.48), (9.48, 9.80))
    stock = timed("Thank you very much.", (9.80, 10.14), (10.14, 10.14), (10.14, 10.14), (10.14, 10.14))
    assert without_soundless_tail([said, stock], 10.156) == [said]
    # Twice over, and alone: dropped too (nothing of it was said).
    assert without_soundless_tail([said, stock, stock], 10.156) == [said]
    assert without_soundless_tail([stock], 10.156) == []
    # The same clip with one more frame of silence: "Thank you.", one word of two squeezed.
    short = timed("Thank you.", (9.82, 10.16), (10.16, 10.16))
    assert without_soundless_tail([said, short], 10.188) == [said]


def test_real_words_at_the_end_are_kept() -> None:
    last = timed("Please.", (9.70, 10.12))
    short = timed("Yes. Okay.", (9.80, 9.95), (9.95, 10.14))  # short, but each has its frames
    squeezed_early = timed("so so so", (3.0, 3.0), (3.0, 3.0), (3.0, 3.01))  # not at the end
    for segment in (last, short, squeezed_early):
        assert without_soundless_tail([segment], 10.156) == [segment]
    # No word timings: nothing to judge by.
    plain = Segment(9.8, 10.14, "Thank you very much.")
    assert without_soundless_tail([plain], 10.156) == [plain]
    # Only the tail is judged: a squeezed segment before real words stays.
    stock = timed("Thank you.", (10.14, 10.14), (10.14, 10.14))
    assert without_soundless_tail([stock, last], 10.156) == [stock, last]


def test_audio_cut_in_voice_loses_only_a_tail_whisper_doubts_too() -> None:
    """A turn cut at its last voiced frame: a real last word can be squeezed by the cut, so
    a soundless tail goes only when Whisper is unsure of it as well (a barge-in's
    "Please. Thanks for watching!" as it was timed and scored)."""
    from dataclasses import replace

    said = replace(timed("mentioned before? Please.", (3.28, 3.54), (3.54, 4.12), (4.58, 4.58)), avg_logprob=-0.62)
    stock = replace(timed("Thanks for watching!", (4.58, 4.68), (4.68, 4.68), (4.68, 4.68)), avg_logprob=-1.45)
    assert without_soundless_tail([said, stock], 4.704, voice_at_end=True) == [said]
    # The same line scored as sure: kept (a learner's real "Thank you." cut as it was said).
    sure = replace(stock, avg_logprob=-0.4)
    assert without_soundless_tail([said, sure], 4.704, voice_at_end=True) == [said, sure]
    assert without_soundless_tail([said, sure], 4.704) == [said]  # after the speech: no sound, gone


def test_spans_from_keeps_what_follows_the_start() -> None:
    spans = [SpeechSpan(0.0, 1.0), SpeechSpan(1.5, 3.0)]
    assert spans_from(spans, 1.2) == [SpeechSpan(1.5, 3.0)]
    assert spans_from(spans, 2.0) == [SpeechSpan(2.0, 3.0)]
    assert spans_from(spans, 3.5) == []


def test_whisper_stt_satisfies_the_part_seam() -> None:
    from tutor_app.speech.stt import WhisperStt

    assert seam_problems(WhisperStt, PartTranscriber) == []


def test_every_decode_is_capped_by_the_speechs_length_whatever_the_window() -> None:
    """A hum Whisper loops on must not hold the call's one STT worker for seconds."""
    import threading

    import numpy as np

    from tutor_app.speech.stt import WhisperStt

    class Model:
        window_frames = None

        def __init__(self) -> None:
            self.calls: list[dict] = []

        def transcribe(self, speech, **arguments):  # noqa: ANN001, ANN003
            self.calls.append(arguments)
            return iter(()), None

    speech = np.zeros(16000, dtype=np.float32)
    for window in (30.0, 15.0):
        stt = object.__new__(WhisperStt)
        stt.options, stt._model, stt._lock = SttOptions(encoder_window_s=window), Model(), threading.Lock()
        stt._decode_windowed(speech, None, "", False)
        assert [c.get("max_new_tokens") for c in stt._model.calls] == [max_tokens(16000)], window


def test_the_tail_is_judged_only_when_the_speech_ended_before_the_audio() -> None:
    """Cut while the learner still speaks (the words so far over the tutor), a last word is
    squeezed for real ("Actually, I-"): kept. One frame of silence at the end: dropped."""
    import threading
    from types import SimpleNamespace

    import numpy as np

    from tutor_app.speech.stt import WhisperStt

    def word(a: float, b: float, w: str) -> SimpleNamespace:
        return SimpleNamespace(start=a, end=b, word=w, probability=0.9)

    class Model:
        window_frames = stop = encoded = None

        def transcribe(self, speech, **arguments):  # noqa: ANN001, ANN003
            end = len(speech) / 16000
            said = SimpleNamespace(start=0.0, end=0.5, text=" Actually,", words=[word(0.0, 0.5, " Actually,")],
                                   avg_logprob=-0.3, no_speech_prob=0.01, compression_ratio=1.0, temperature=0.0)
            cut = SimpleNamespace(start=0.5, end=end, text=" I-", words=[word(end, end, " I-")],
                                  avg_logprob=-0.9, no_speech_prob=0.2, compression_ratio=1.0, temperature=0.0)
            return iter([said, cut]), None

    class Vad:
        def __init__(self, last: float) -> None:
            self.last = last

        def frame_probabilities(self, samples):  # noqa: ANN001
            return np.array([0.9] * (len(samples) // 512 - 1) + [self.last])

    texts = {}
    for last in (0.9, 0.1):
        stt = object.__new__(WhisperStt)
        stt.options, stt._model, stt._lock, stt.vad = SttOptions(), Model(), threading.Lock(), Vad(last)
        texts[last] = stt.transcribe_part(np.full(16 * 512, 0.1, dtype=np.float32)).text
    assert texts == {0.9: "Actually, I-", 0.1: "Actually,"}
