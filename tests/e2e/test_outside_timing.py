"""`bench call`'s outside timing (bench/outside.py) on the virtual sound card: a clip played
into the microphone and, after it, a reply played into the speaker are found in the one
recording, in order, and timed from the clip's last voiced frame."""
from __future__ import annotations

import subprocess

import numpy as np
import soundfile as sf

from tutor_app.bench.outside import OutsideRecorder, voice_to_voice
from tutor_app.core.types import SAMPLE_RATE


def _listed_modules() -> str:
    return subprocess.run(["pactl", "list", "modules", "short"], check=True, capture_output=True, text=True).stdout


def test_a_reply_after_a_clip_is_timed_from_the_recording_and_the_probe_is_gone_after(models, tmp_path, shared_data):
    clip = shared_data / "speech" / "pocketsphinx_goforward.wav"
    reply = tmp_path / "reply.wav"
    tone = 0.3 * np.sin(2 * np.pi * 440 * np.arange(SAMPLE_RATE // 2) / SAMPLE_RATE)
    sf.write(reply, np.concatenate([np.zeros(SAMPLE_RATE // 2), tone]).astype(np.float32), SAMPLE_RATE)

    before = _listed_modules().count("module-loopback")
    with OutsideRecorder() as outside:
        assert "probe" in subprocess.run(["pactl", "list", "sinks", "short"], check=True, capture_output=True,
                                         text=True).stdout
        subprocess.run(["paplay", "--device=micsrc", str(clip)], check=True)
        subprocess.run(["paplay", "--device=spk", str(reply)], check=True)  # its tone starts 0.5 s in
        learner, tutor = outside.stop()

    turns = voice_to_voice(learner, tutor, models.vad)
    assert len(turns) == 1
    v2v = turns[0].voice_to_voice_ms
    # After the clip ends: the clip's trailing silence, paplay's start, then the tone's 0.5 s lead.
    assert v2v is not None and v2v > 500
    assert turns[0].first_audible_s is not None and turns[0].first_audible_s > turns[0].last_voiced_s
    assert _listed_modules().count("module-loopback") == before


def test_an_interruption_is_timed_from_the_clip_in_the_microphone_to_the_speakers_silence(models, tmp_path,
                                                                                          shared_data):
    """`bench echo`'s outside timing: the clip played into the microphone is found (by its
    first voiced sample) and the 'tutor' playing in the speaker is timed to its silence."""
    from tutor_app.bench.outside import AUDIBLE, clip_starts, stopped_after
    from tutor_app.speech.audiofile import load_audio

    clip = shared_data / "speech" / "pocketsphinx_goforward.wav"
    tutor = tmp_path / "tutor.wav"
    tone = 0.3 * np.sin(2 * np.pi * 330 * np.arange(3 * SAMPLE_RATE) / SAMPLE_RATE)
    # 3 s of 'tutor', then 1.5 s of silence played too: the recording holds the silence it is timed to.
    sf.write(tutor, np.concatenate([tone, np.zeros(3 * SAMPLE_RATE // 2)]).astype(np.float32), SAMPLE_RATE)
    with OutsideRecorder() as outside:
        speaking = subprocess.Popen(["paplay", "--device=spk", str(tutor)])
        subprocess.run(["paplay", "--device=micsrc", str(clip)], check=True)  # over the tutor
        speaking.wait(timeout=30)
        learner, speaker = outside.stop()

    played = load_audio(clip).samples
    starts = clip_starts(learner, played, 1, models.vad)
    assert len(starts) == 1
    last_audible = (np.flatnonzero(np.abs(speaker) > AUDIBLE)[-1] + 1) / SAMPLE_RATE
    stop = stopped_after(speaker, starts[0])
    assert stop is not None and starts[0] < stop and abs(stop - last_audible) < 0.01
    assert len(clip_starts(learner, played, 2, models.vad)) == 1  # played once: found once
