"""Smart Turn v3.2 on real clips (Piper, espeak-ng and recorded speech with a silence
spliced in at a word boundary), our features against pipecat's, the pause-clip set, and
`decide` on real model scores and real Whisper transcripts.

Scores are compared with margins measured here (see the report in the test names'
comments), never as exact numbers."""
from __future__ import annotations

import importlib.util
import shutil
import statistics

import numpy as np
import pytest

from tests.conftest import missing_prerequisite
from tutor_app.bench.pause_clips import ClipOptions, ensure_pause_clips, load_clip, read_manifest, write_pause_clips
from tutor_app.core.types import SAMPLE_RATE
from tutor_app.errors import TutorError
from tutor_app.speech.end_of_turn import decide
from tutor_app.speech.smart_turn import MODEL_FILE, SmartTurn, fit_window, load_smart_turn, log_mel_features

pytestmark = pytest.mark.slow

AFTER = 0.2  # s of silence after the last word when the model is asked (the short wait)


@pytest.fixture(scope="session")
def smart_turn(registry):
    model = load_smart_turn(registry)
    model.warm_up()
    return model


@pytest.fixture(scope="session")
def clips(tmp_path_factory, registry, shared_data):
    if not shutil.which("espeak-ng"):
        missing_prerequisite("espeak-ng is not installed (scripts/system-packages.sh)")
    folder = tmp_path_factory.mktemp("pause-clips")
    write_pause_clips(folder, registry, ClipOptions(data_dir=shared_data))
    return folder, {c.id: c for c in read_manifest(folder)}


def early_audio(folder, clip) -> np.ndarray:
    """What the model sees after the short wait: up to the pause (or the end) + AFTER."""
    end = (clip.pause_at if clip.pause_at is not None else clip.speech_end) + AFTER
    return load_clip(folder, clip)[: int(end * SAMPLE_RATE)]


def scores(smart_turn, clips, kind, voice_prefix=""):
    folder, by_id = clips
    return [smart_turn.predict(early_audio(folder, c)) for c in by_id.values()
            if c.kind == kind and c.voice.startswith(voice_prefix)]


# -- the model and its features -------------------------------------------------------------

def test_model_comes_from_the_registry(registry, smart_turn):
    spec = registry.default("turn")
    assert spec.name == "smart-turn-v3.2" and spec.license.startswith("BSD")
    assert registry.status(spec).usable
    assert smart_turn.path.name == MODEL_FILE
    assert smart_turn.path.parent == registry.path(spec.name)


def test_features_match_pipecats_whisper_features(registry, clips):
    """Our numpy features against the reference pipecat ships (vendored from transformers'
    WhisperFeatureExtractor), loaded from the wheel's file without importing pipecat."""
    source = registry.get("smart-turn-v3.2").package_dir().parent / "_whisper_features.py"
    spec = importlib.util.spec_from_file_location("pipecat_whisper_features", source)
    reference = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reference)
    folder, by_id = clips
    for clip_id in ("pause-00", "complete-02", "recorded-pause-00"):
        window = fit_window(load_clip(folder, by_id[clip_id]))
        ours = log_mel_features(window)
        theirs = reference.compute_whisper_log_mel_features(window, do_normalize=True)
        assert ours.shape == theirs.shape == (80, 800)
        assert float(np.max(np.abs(ours - theirs))) < 1e-4, clip_id


def test_only_the_last_eight_seconds_count_and_short_turns_are_left_padded(smart_turn, clips):
    folder, by_id = clips
    long_clip = load_clip(folder, by_id["recorded-pause-00"])  # ~12 s
    assert len(long_clip) > 8 * SAMPLE_RATE
    assert smart_turn.predict(long_clip) == smart_turn.predict(long_clip[-8 * SAMPLE_RATE:])
    short = early_audio(folder, by_id["complete-01"])
    padded = np.concatenate([np.zeros(SAMPLE_RATE, dtype=np.float32), short])
    assert smart_turn.predict(short) == smart_turn.predict(padded)


def test_int16_input_is_scaled(smart_turn, clips):
    folder, by_id = clips
    audio = early_audio(folder, by_id["complete-03"])
    as_int16 = np.round(audio * 32767).astype(np.int16)
    assert abs(smart_turn.predict(as_int16) - smart_turn.predict(audio)) < 0.02
    assert 0.0 <= smart_turn.predict(audio) <= 1.0 and smart_turn.last_ms > 0


def test_a_missing_model_file_is_one_clear_error(tmp_path):
    with pytest.raises(TutorError, match="models install smart-turn"):
        SmartTurn.load(tmp_path)


# -- complete vs. cut ---------------------------------------------------------------------------
# Measured here (2-core CPU, onnxruntime 1.32): Piper complete 0.76 mean vs cut 0.46;
# all synthetic complete 0.75 vs cut 0.37; the real recordings below 0.65/0.97 vs 0.03/0.01.

def test_piper_complete_sentences_score_higher_than_cut_ones(smart_turn, clips):
    complete = scores(smart_turn, clips, "complete", "piper")
    cut = scores(smart_turn, clips, "pause", "piper")
    assert len(complete) >= 3 and len(cut) >= 4
    assert statistics.mean(complete) > statistics.mean(cut) + 0.15


def test_all_voices_complete_sentences_score_higher_than_cut_ones(smart_turn, clips):
    complete = scores(smart_turn, clips, "complete")
    cut = scores(smart_turn, clips, "pause")
    assert statistics.mean(complete) > statistics.mean(cut) + 0.25
    assert statistics.median(complete) > 0.5 > statistics.median(cut)


def test_real_speech_cut_at_a_word_boundary_scores_low(smart_turn, clips):
    folder, by_id = clips
    # LibriSpeech 1089: "he hoped there would be stew for | ..." vs one of his complete sentences.
    cut = smart_turn.predict(early_audio(folder, by_id["recorded-pause-00"]))
    complete = smart_turn.predict(early_audio(folder, by_id["recorded-complete-05"]))
    assert cut < 0.3 and complete > cut + 0.3
    # LibriVox: "... rather selfish is to | be ill disposed" vs the same sentence whole.
    cut = smart_turn.predict(early_audio(folder, by_id["recorded-pause-03"]))
    complete = smart_turn.predict(early_audio(folder, by_id["recorded-complete-06"]))
    assert cut < 0.3 and complete > 0.7


def test_words_and_audio_together_cut_fewer_pauses_than_audio_alone(smart_turn, stt, clips):
    """Real Whisper transcripts of the early audio + real scores, through `decide`."""
    from tutor_app.core.types import AudioClip

    folder, by_id = clips
    cut_both = cut_audio = fast_both = n_pause = n_complete = 0
    for clip in by_id.values():
        audio = early_audio(folder, clip)
        probability = smart_turn.predict(audio)
        verdict = decide(probability, stt.transcribe(AudioClip(audio, SAMPLE_RATE)).text)
        if clip.kind == "pause":
            n_pause += 1
            cut_both += verdict.complete
            cut_audio += probability >= 0.5
        else:
            n_complete += 1
            fast_both += verdict.complete
    # Measured: cut 0/18 with both vs 6/18 on audio alone; 12/13 complete ended at once.
    assert cut_audio >= 3  # the audio model alone does cut pauses (why the words matter)
    assert cut_both <= n_pause // 10 and cut_both < cut_audio
    assert fast_both >= 0.75 * n_complete


# -- the pause-clip set ------------------------------------------------------------------------

def test_the_clip_set_has_what_the_benches_need(clips):
    folder, by_id = clips
    pauses = [c for c in by_id.values() if c.kind == "pause"]
    complete = [c for c in by_id.values() if c.kind == "complete"]
    assert len(pauses) >= 12 and len(complete) >= 8
    assert {c.voice.split(":")[0] for c in by_id.values()} == {"piper", "espeak", "recorded"}
    assert any(c.voice.startswith("recorded:librispeech") for c in pauses)
    assert {c.splice for c in pauses} == {"boundary", "halves"}
    for clip in pauses:
        assert 0.6 <= clip.pause_seconds <= 2.0 and clip.first and clip.second and not clip.complete
        audio = load_clip(folder, clip)
        gap = audio[int((clip.pause_at + 0.05) * SAMPLE_RATE): int((clip.pause_at + clip.pause_seconds - 0.05) * SAMPLE_RATE)]
        speech = audio[int(clip.speech_start * SAMPLE_RATE): int(clip.pause_at * SAMPLE_RATE)]
        after = audio[int((clip.pause_at + clip.pause_seconds) * SAMPLE_RATE): int(clip.speech_end * SAMPLE_RATE)]
        assert np.sqrt(np.mean(gap ** 2)) < 0.01 * np.sqrt(np.mean(speech ** 2)), clip.id  # silent
        assert np.sqrt(np.mean(after ** 2)) > 0.1 * np.sqrt(np.mean(speech ** 2)), clip.id  # speech again
        assert clip.speech_end < clip.duration - 0.5
    for clip in complete:
        assert clip.complete and clip.pause_at is None and clip.second == ""


def test_the_clip_set_is_deterministic_and_reused(tmp_path, registry):
    options = ClipOptions(sources=("piper", "espeak"), limit=3)
    first = write_pause_clips(tmp_path / "a", registry, options)
    second = write_pause_clips(tmp_path / "b", registry, options)
    assert first == second and len(first) == 6
    for clip in first:
        assert (tmp_path / "a" / clip.file).read_bytes() == (tmp_path / "b" / clip.file).read_bytes()
    manifest = tmp_path / "a" / "manifest.json"
    stamp = manifest.stat().st_mtime_ns
    assert ensure_pause_clips(tmp_path / "a", registry, options) == first
    assert manifest.stat().st_mtime_ns == stamp  # same options: not written again
    with pytest.raises(TutorError):
        read_manifest(tmp_path / "nowhere")
