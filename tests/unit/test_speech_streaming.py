"""The streaming transcriber (speech/streaming.py), frame-scripted: a fake decoder answers
each decode from a script of words with times, so every commit, cut and tail is exact."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from tutor_app.core.types import SAMPLE_RATE, Segment, Transcript, Word
from tutor_app.speech.bias import BiasList
from tutor_app.speech.ports import PartTranscriber
from tutor_app.speech.streaming import StreamingTranscriber, StreamOptions
from tutor_app.speech.streaming_agreement import Heard, agreed, drop_repeat, normal, pause_cut, prompt_of, word_cut

# What the speaker says: (word, start s, end s), and the quiet stretches between.
SPEECH = [("I", 0.3, 0.5), ("went", 0.5, 0.9), ("to", 1.6, 1.8), ("the", 1.8, 2.0), ("market", 2.0, 2.6),
          ("yesterday.", 3.4, 4.2)]
PAUSES = [(0.0, 0.3), (0.9, 1.6), (2.6, 3.4)]


def audio(seconds: float) -> np.ndarray:
    return np.zeros(int(seconds * SAMPLE_RATE), dtype=np.float32)


class ScriptedDecoder:
    """Answers a decode with the words of `SPEECH` heard by then (their end within the
    audio) from `start` on, with `changes` applied ({call number: {word: heard as}}),
    and records each call."""

    def __init__(self, speech=SPEECH, pauses=PAUSES, changes=None) -> None:
        self.speech, self.pauses, self.changes = speech, pauses, changes or {}
        self.calls: list[dict] = []
        self.started = threading.Event()
        self.release: threading.Event | None = None  # set: a decode waits for it

    def transcribe_part(self, audio, start=0, prompt="", bias=None) -> Transcript:
        end = len(audio) / SAMPLE_RATE
        self.calls.append({"start": start, "end": end, "prompt": prompt, "bias": bias})
        self.started.set()
        if self.release is not None:
            self.release.wait(10)
        change = self.changes.get(len(self.calls), {})
        words = tuple(Word(a, b, " " + change.get(w, w), 0.9) for w, a, b in self.speech
                      if b <= end and (a + b) / 2 >= start / SAMPLE_RATE)
        segments = [Segment(words[0].start, words[-1].end, "".join(w.word for w in words).strip(), words,
                            avg_logprob=-0.2 - len(self.calls) / 100)] if words else []
        pauses = [(a, min(b, end)) for a, b in self.pauses if a < end]
        return Transcript(" ".join(s.text for s in segments), "en", end, segments, pauses,
                          round(end - sum(b - a for a, b in pauses), 3))


def streamer(decoder=None, **options) -> tuple[StreamingTranscriber, ScriptedDecoder]:
    """Decodes from the last cut with the final words as the prompt, unless told otherwise
    (the defaults decode a few seconds more, without a prompt: see StreamOptions)."""
    decoder = decoder or ScriptedDecoder()
    options = {"context_s": 0.0, "prompt_chars": 200, **options}
    return StreamingTranscriber(decoder, options=StreamOptions(**options)), decoder


def test_a_fake_decoder_satisfies_the_seam() -> None:
    assert isinstance(ScriptedDecoder(), PartTranscriber)


def test_words_two_passes_agree_on_are_committed_and_the_audio_is_cut_at_the_pause() -> None:
    st, decoder = streamer()
    assert st.run_pass(audio(1.0)) == []  # one pass: nothing to agree with
    assert st.committed_text == "" and st.committed_until == 0.0
    assert st.run_pass(audio(2.0)) == ["I", "went"]  # both heard "I went"; the pause after it is over
    assert st.final_text == "I went"
    assert st.committed_until == pytest.approx((0.9 + 1.6) / 2, abs=1 / SAMPLE_RATE)
    assert decoder.calls[1]["start"] == 0
    st.run_pass(audio(3.0))
    assert decoder.calls[2]["start"] == int(1.25 * SAMPLE_RATE)  # only after the cut
    assert decoder.calls[2]["prompt"] == "I went"  # the final words before it


def test_disagreeing_passes_commit_only_their_common_start() -> None:
    st, _ = streamer(ScriptedDecoder(changes={2: {"went": "want"}}))
    st.run_pass(audio(1.0))
    assert st.run_pass(audio(2.0)) == []  # "I went" then "I want": only "I" agreed
    assert st.committed_text == "I"
    assert st.committed_until == 0.0  # a cut needs every word before the pause agreed
    assert st.run_pass(audio(3.0)) == []  # "I want" then "I went": still only "I"
    assert st.run_pass(audio(4.0)) == ["I", "went", "to", "the", "market"]  # agreed twice now
    assert st.committed_until == pytest.approx(3.0)


def test_a_quiet_end_is_no_pause_to_cut_at() -> None:
    """The audio ends in a quiet stretch (maybe a soft word's start): no cut there."""
    st, _ = streamer()
    st.run_pass(audio(1.0))
    st.run_pass(audio(1.2))  # "I went" agreed, but the pause after it has not ended
    assert st.committed_text == "I went" and st.committed_until == 0.0


def test_finish_decodes_only_the_tail_and_returns_the_whole_transcript() -> None:
    st, decoder = streamer()
    for seconds in (1.0, 2.0, 3.0, 4.0):
        st.run_pass(audio(seconds))
    assert st.final_text == "I went to the market"
    cut = st.committed_until
    transcript = st.finish(audio(4.3))
    assert decoder.calls[-1]["start"] == int(cut * SAMPLE_RATE)
    assert decoder.calls[-1]["prompt"] == "I went to the market"
    assert transcript.text == "I went to the market yesterday."
    assert [w.word.strip() for s in transcript.segments for w in s.words] == [w for w, _, _ in SPEECH]
    assert transcript.seconds == pytest.approx(4.3)
    assert transcript.pauses == PAUSES  # the last decode saw the whole audio
    # Each segment keeps the scores of the decode its words came from (tutor/heard.py).
    assert len({s.avg_logprob for s in transcript.segments}) == len(transcript.segments) > 1
    assert st.final_text == "I went to the market"  # finishing commits nothing: the turn may go on


def test_a_short_turn_is_decoded_whole_at_the_end() -> None:
    st, decoder = streamer()
    transcript = st.finish(audio(0.95))
    assert transcript.text == "I went"
    assert decoder.calls == [{"start": 0, "end": 0.95, "prompt": "", "bias": None}]


def test_hotwords_go_with_every_decode() -> None:
    names = BiasList(("Minji", "Bukhansan"))
    decoder = ScriptedDecoder()
    st = StreamingTranscriber(decoder, bias=names)  # the default options
    st.run_pass(audio(1.0))
    st.run_pass(audio(2.0))
    st.finish(audio(2.5))
    assert [call["bias"] for call in decoder.calls] == [names] * 3


def test_due_after_each_step_of_new_audio_and_never_while_a_pass_runs() -> None:
    st, _ = streamer(step_s=1.0, first_pass_s=1.0)
    assert not st.due(SAMPLE_RATE - 1)
    assert st.due(SAMPLE_RATE)
    job = st.pass_job(audio(1.0))
    assert not st.due(3 * SAMPLE_RATE)  # busy
    job()
    assert not st.due(int(1.5 * SAMPLE_RATE))  # half a step since that pass
    assert st.due(2 * SAMPLE_RATE)


def test_voiced_samples_can_drive_the_steps() -> None:
    st, _ = streamer(step_s=1.0)
    st.pass_job(audio(2.0), samples=SAMPLE_RATE)()  # 2 s of audio, 1 s of it voiced
    assert not st.due(int(1.9 * SAMPLE_RATE)) and st.due(2 * SAMPLE_RATE)


def test_reset_starts_a_new_utterance_and_voids_the_old_ones_pass() -> None:
    st, decoder = streamer()
    st.run_pass(audio(1.0))
    st.run_pass(audio(2.0))
    old = st.pass_job(audio(3.0))
    st.reset()
    assert st.committed_text == "" and st.committed_until == 0.0
    new = st.pass_job(audio(1.0))
    assert old() == [] and len(decoder.calls) == 2  # never decoded
    assert not st.due(5 * SAMPLE_RATE)  # the stale job did not free the new utterance's pass
    new()
    assert decoder.calls[-1]["start"] == 0 and st.due(2 * SAMPLE_RATE)


def test_a_pass_still_decoding_at_a_reset_changes_nothing() -> None:
    decoder = ScriptedDecoder()
    decoder.release = threading.Event()
    st, _ = streamer(decoder)
    job = st.pass_job(audio(2.0))
    result: list = []
    worker = threading.Thread(target=lambda: result.append(job()))
    worker.start()
    assert decoder.started.wait(10)
    st.reset()
    decoder.release.set()
    worker.join(10)
    assert result == [[]] and st.committed_text == ""


def test_the_end_skips_a_pass_that_has_not_started() -> None:
    st, decoder = streamer()
    queued = st.pass_job(audio(2.0))
    ending = st.finish_job(audio(2.2))
    assert queued() == [] and decoder.calls == []
    assert st.stats.skipped == 1
    assert ending().text == "I went to the"
    assert len(decoder.calls) == 1
    st.pass_job(audio(3.0))()  # the learner went on: passes go on
    assert len(decoder.calls) == 2


def test_context_starts_each_decode_at_an_earlier_cut() -> None:
    st, decoder = streamer(context_s=2.0)
    for seconds in (1.0, 2.0, 3.0, 4.0):
        st.run_pass(audio(seconds))
    assert st.final_text == "I went to the market"  # cuts at 1.25 s and 3.0 s
    transcript = st.finish(audio(4.3))
    assert decoder.calls[-1]["start"] == int(1.25 * SAMPLE_RATE)  # >= 2 s before the end
    assert decoder.calls[-1]["prompt"] == "I went"
    assert transcript.text == "I went to the market yesterday."


def test_by_default_the_tail_is_decoded_with_context_and_no_prompt() -> None:
    decoder = ScriptedDecoder()
    st = StreamingTranscriber(decoder)
    for seconds in (1.0, 2.0, 3.0, 4.0):
        st.run_pass(audio(seconds))
    assert st.final_text == "I went to the market"
    assert st.finish(audio(4.3)).text == "I went to the market yesterday."
    assert decoder.calls[-1]["start"] == int(1.25 * SAMPLE_RATE)  # the last cut >= 3 s before the end
    assert {call["prompt"] for call in decoder.calls} == {""}


def test_a_long_stretch_without_a_pause_can_be_cut_between_words() -> None:
    speech = [(w, 0.2 + 0.4 * i, 0.6 + 0.4 * i) for i, w in enumerate("we talked for hours about many things".split())]
    decoder = ScriptedDecoder(speech, pauses=[(0.0, 0.2)])
    st, _ = streamer(decoder, word_cut_s=1.5)
    st.run_pass(audio(1.5))
    # "we talked for" agreed: cut before the last of them, which is decoded again after the cut
    assert st.run_pass(audio(2.5)) == ["we", "talked"]
    assert st.committed_until == pytest.approx(1.0)
    assert st.run_pass(audio(3.0)) == ["for", "hours"]
    assert st.committed_until == pytest.approx(1.8)
    assert st.finish(audio(3.1)).text == "we talked for hours about many things"


def test_decodes_that_never_agree_settle_behind_a_long_utterance() -> None:
    speech = [(f"w{i}", 0.5 * i, 0.5 * i + 0.4) for i in range(60)]
    changes = {n: {"w0": f"x{n}"} for n in range(1, 40)}  # the first word never agrees
    st, _ = streamer(ScriptedDecoder(speech, pauses=[], changes=changes), max_pending_s=20.0, settle_s=5.0)
    for seconds in range(1, 22):
        st.run_pass(audio(seconds))
    final = st.final_text.split()
    assert final[-1] == "w31" and len(final) == 32  # the words that end 5 s before the 21 s of audio
    assert st.committed_until == pytest.approx(15.9)


# -- the pure part -------------------------------------------------------------------------
def heard(*words: str, start: float = 0.0) -> list[Heard]:
    seg = Segment(0, 1, " ".join(words))
    return [Heard(Word(start + i, start + i + 0.5, " " + w, 1.0), seg) for i, w in enumerate(words)]


def test_words_compare_without_case_or_punctuation() -> None:
    assert normal(" Waiting,") == normal("waiting") == "waiting"
    assert normal("I'm") == "i'm" and normal("-") == ""
    assert agreed(heard("I", "went", "to"), heard("i", "went,", "two")) == 2


def test_a_repeated_start_is_dropped_longest_first() -> None:
    before = heard("the", "old", "market")
    assert [h.key for h in drop_repeat(before, heard("old", "market", "was"))] == ["was"]
    assert [h.key for h in drop_repeat(before, heard("a", "market"))] == ["a", "market"]


def test_pause_cut_needs_every_word_before_it_agreed() -> None:
    words = heard("I", "went", "to")  # 0-0.5, 1-1.5, 2-2.5
    assert pause_cut(words, 2, [(1.5, 2.0)], after=0.0, until=3.0) == 1.75
    assert pause_cut(words, 1, [(1.5, 2.0)], after=0.0, until=3.0) is None
    assert pause_cut(words, 3, [(2.5, 2.95)], after=0.0, until=3.0) is None  # ends with the audio
    assert pause_cut(words, 3, [(0.5, 1.0), (1.5, 2.0)], after=1.0, until=3.0) == 1.75


def test_word_cut_keeps_the_last_agreed_word_for_the_next_decode() -> None:
    words = heard("we", "talked", "for")  # ends 0.5, 1.5, 2.5
    assert word_cut(words, 3, until=3.0) == (pytest.approx(1.75), 2)
    assert word_cut(words, 1, until=3.0) is None


def test_the_prompt_is_the_end_of_the_final_text_without_its_full_stop() -> None:
    words = heard("And", "so", "my", "fellow", "Americans.")
    assert prompt_of(words, 200) == "And so my fellow Americans"
    assert prompt_of(words, 16) == prompt_of(words, 18) == "fellow Americans"
    assert prompt_of(words, 0) == ""
