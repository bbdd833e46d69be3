"""The real multilingual Whisper (whisper-base, installed by `make setup`): it loads, tells
the shared English recordings apart as English, and decodes a turn from the encoder pass
that read its language (and a turn longer than one window in pieces cut in its pauses).
No Korean recording exists here: espeak-ng's Korean is not heard as Korean even by this model, so such a turn keeps "I didn't catch that" (the unit tests script the
model to cover Korean it is sure of)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import missing_prerequisite
from tutor_app.bench.language_clips import KOREAN, espeak, espeak_available, padded, shared_clips
from tutor_app.core.types import SAMPLE_RATE, AudioClip
from tutor_app.speech.wer import wer
from tutor_app.tutor.hear_again import hear_again

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def ear(speech_settings, registry):
    from tutor_app.speech.language_id import MODEL, installed_ear

    found = installed_ear(speech_settings, registry)
    if found is None:
        missing_prerequisite(f"{MODEL} is not installed: tutor-app models install {MODEL} (make setup does)")
    found.warm_up()
    return found


@pytest.fixture(scope="module")
def english(shared_data):
    import csv

    with (shared_data / "speech" / "manifest.tsv").open(encoding="utf-8", newline="") as handle:
        said = {row["file"]: row["transcript"] for row in csv.DictReader(handle, delimiter="\t")}
    return [(clip, said[clip.name]) for clip in shared_clips(shared_data)]


def test_the_shared_english_recordings_are_english_and_not_decoded_as_korean(ear, english):
    for clip, _ in english:
        hearing = ear.hear(clip.clip, {"ko": 0.5})
        assert hearing.language == "en" and hearing.probability > 0.9, (clip.name, hearing)
        assert hearing.text == ""  # not the language asked about: nothing decoded


def test_it_decodes_from_the_pass_that_read_the_language(ear, english):
    clip, said = english[0]  # JFK, 11 s: one window
    hearing = ear.hear(clip.clip, {"en": 0.5})
    assert hearing.language == "en" and wer(said, hearing.text) < 0.1, hearing
    assert hearing.avg_logprob > -0.5 and hearing.no_speech_prob < 0.2 and 0 < hearing.compression_ratio < 2.4


def test_a_turn_longer_than_one_window_is_decoded_whole(ear, english):
    from tutor_app.speech.audiofile import to_mono_16k

    pieces = [(to_mono_16k(c.clip), said) for c, said in english[:4]]  # 11 + 10.4 + 5.4 + 7.1 s
    samples = np.concatenate([p for p, _ in pieces])
    assert len(samples) > 30 * SAMPLE_RATE
    hearing = ear.hear(AudioClip(samples, SAMPLE_RATE), {"en": 0.5})
    assert wer(" ".join(said for _, said in pieces), hearing.text) < 0.15, hearing.text


def test_espeak_korean_is_not_heard_as_korean_so_the_fixed_line_stays(ear, stt, tmp_path):
    if not espeak_available():
        missing_prerequisite("espeak-ng is not installed (scripts/system-packages.sh installs it)")
    clip = padded(espeak(KOREAN[0], "ko", tmp_path, "ko"))  # "이거 영어로 뭐라고 해요?"
    found = hear_again(clip, stt.transcribe(clip), ear)
    assert found is not None and found.text == "", found  # the English gate turned it away
    assert found.language != "ko" and found.reason == "other-language"


def test_english_tiny_en_doubted_is_heard_again_in_english(ear, english):
    """A turn the English gate turned away (scripted here: its decode as unsure as espeak's
    "I live in Seoul." came out of the live call) that the larger model hears as English:
    its words are the turn."""
    from tests.unit.test_heard import transcript

    clip, said = english[0]  # JFK, 11 s
    found = hear_again(clip.clip, transcript("and so my fellow americans", logprob=-0.9), ear)
    assert found is not None and found.reason == "english" and found.remember, found
    assert wer(said, found.text) < 0.1, found.text


def test_other_languages_are_never_heard_again_as_english(ear, stt, tmp_path):
    """espeak-ng's Japanese and Chinese that the English gate turns away: the larger model
    never makes English words of them (of `bench language`'s synthetic speech these came
    nearest English: 0.74 at most, in words that were spelled or looped; its Korean at most
    0.39, and the Korean test above runs through the same model)."""
    from tutor_app.bench.language_clips import espeak_clips
    from tutor_app.tutor.heard import heard

    if not espeak_available():
        missing_prerequisite("espeak-ng is not installed (scripts/system-packages.sh installs it)")
    foreign = [c for c in espeak_clips(tmp_path, quick=True) if not c.english and "Korean" not in c.source]
    assert len(foreign) >= 8
    for clip in foreign:
        transcript = stt.transcribe(clip.clip)
        if heard(transcript).understood:
            continue  # the English gate's own test (test_not_english.py)
        found = hear_again(clip.clip, transcript, ear)
        assert found is not None and found.reason != "english", (clip.name, found.reason, found.probability)
