"""Reading audio files and clips: formats, resampling, and one clear error per bad input."""
import numpy as np
import pytest
import soundfile as sf

from tutor_app.core.types import AudioClip
from tutor_app.errors import AudioInputError
from tutor_app.speech.audiofile import load_audio, to_mono_16k
from tutor_app.speech.tts import write_wav


def tone(rate, seconds=1.0, freq=440.0):
    t = np.arange(int(rate * seconds)) / rate
    return (0.5 * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def test_wav_at_44100_stereo_becomes_16k_mono(tmp_path):
    path = tmp_path / "a.wav"
    stereo = np.stack([tone(44100), tone(44100)], axis=1)
    sf.write(path, stereo, 44100)
    clip = load_audio(path)
    assert clip.sample_rate == 16000 and clip.samples.ndim == 1 and clip.samples.dtype == np.float32
    assert abs(clip.seconds - 1.0) < 0.01


def test_flac_reads(tmp_path):
    path = tmp_path / "a.flac"
    sf.write(path, tone(16000), 16000)
    assert abs(load_audio(path).seconds - 1.0) < 0.01


def test_missing_file(tmp_path):
    with pytest.raises(AudioInputError, match="no such file"):
        load_audio(tmp_path / "nope.wav")


def test_folder_is_not_a_file(tmp_path):
    with pytest.raises(AudioInputError, match="not a file"):
        load_audio(tmp_path)


def test_garbage_bytes(tmp_path):
    path = tmp_path / "x.wav"
    path.write_bytes(bytes(range(256)) * 20)
    with pytest.raises(AudioInputError, match="cannot read audio") as info:
        load_audio(path)
    assert "\n" not in str(info.value) and str(path) in str(info.value)


def test_empty_wav(tmp_path):
    path = tmp_path / "empty.wav"
    sf.write(path, np.zeros(0, dtype=np.float32), 16000)
    with pytest.raises(AudioInputError, match="empty"):
        load_audio(path)


def test_too_long_is_refused_before_decoding(tmp_path):
    path = tmp_path / "long.wav"
    sf.write(path, np.zeros(8000 * 4, dtype=np.float32), 8000)  # 4 s
    with pytest.raises(AudioInputError, match="limit"):
        load_audio(path, max_seconds=3)


def test_resample_clip_any_rate():
    out = to_mono_16k(AudioClip(tone(22050), 22050))
    assert out.dtype == np.float32 and abs(len(out) - 16000) <= 1
    same = to_mono_16k(AudioClip(tone(16000), 16000))
    assert len(same) == 16000


def test_bad_clip_shape():
    with pytest.raises(AudioInputError):
        to_mono_16k(AudioClip(np.zeros((2, 3, 4), dtype=np.float32), 16000))


def test_write_wav_is_atomic_and_valid(tmp_path):
    path = tmp_path / "out.wav"
    write_wav(path, tone(22050), 22050)
    data, rate = sf.read(path)
    assert rate == 22050 and len(data) == 22050
    assert sf.info(path).subtype == "PCM_16"
    assert [p.name for p in tmp_path.iterdir()] == ["out.wav"]  # no temp file left


def test_write_wav_failure_leaves_nothing(tmp_path, monkeypatch):
    import soundfile

    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(soundfile, "write", boom)
    with pytest.raises(OSError):
        write_wav(tmp_path / "out.wav", tone(22050), 22050)
    assert list(tmp_path.iterdir()) == []


def test_mp3_reads(tmp_path):
    import av

    path = tmp_path / "a.mp3"
    samples = (tone(16000) * 32767).astype(np.int16)[None, :]
    with av.open(str(path), "w") as out:
        stream = out.add_stream("mp3", rate=16000)
        stream.layout = "mono"
        frame = av.AudioFrame.from_ndarray(samples, format="s16", layout="mono")
        frame.sample_rate = 16000
        for packet in [*stream.encode(frame), *stream.encode(None)]:
            out.mux(packet)
    clip = load_audio(path)
    assert abs(clip.seconds - 1.0) < 0.1 and np.abs(clip.samples).max() > 0.3


def test_int16_clip_is_scaled():
    pcm = (tone(16000) * 32767).astype(np.int16)
    out = to_mono_16k(AudioClip(pcm, 16000))
    assert out.dtype == np.float32 and 0.45 < np.abs(out).max() <= 0.5
