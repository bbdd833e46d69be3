"""Speech modules keep heavy libraries out of import time (`tutor-app --help` stays instant)."""
import subprocess
import sys

HEAVY = ("faster_whisper", "ctranslate2", "onnxruntime", "piper", "soundfile", "scipy", "av", "torch")


def test_speech_modules_import_no_heavy_library():
    code = (
        "import sys\n"
        "import tutor_app.speech.devices, tutor_app.speech.stt, tutor_app.speech.tts, tutor_app.speech.vad\n"
        "import tutor_app.speech.segmenter, tutor_app.speech.text_normalize, tutor_app.speech.wer\n"
        "import tutor_app.speech.audiofile, tutor_app.commands.transcribe, tutor_app.commands.speak\n"
        "import tutor_app.bench.speech\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""
