"""A spoken call's report carries its fluency, from the real recogniser's word timings
(one process: the live path), and typed turns add nothing to it."""
from __future__ import annotations

import pytest

from tests.fakes.anthropic_server import Reply

pytestmark = pytest.mark.slow


def test_a_spoken_turn_gives_the_call_report_its_fluency(fake_anthropic, shared_data, data_dir):
    from tutor_app.app import App
    from tutor_app.paths import AppPaths
    from tutor_app.settings import Settings
    from tutor_app.speech.audiofile import load_audio

    app = App(Settings.load(AppPaths.resolve(data_dir), llm_backend="anthropic"))
    try:
        fake_anthropic.push(Reply("Famous words!"), Reply("Indeed."))
        fake_anthropic.default = Reply('{"corrections": [], "new_words": []}')
        call = app.engine.start_call("fl1")
        heard = call.turn_audio(load_audio(shared_data / "speech" / "whisper_jfk.flac"))
        assert "country" in heard.transcript.lower()
        call.turn("I typed this one.")
        fluency = call.end(background=False).report.fluency
    finally:
        app.close()
    assert fluency["spoken_turns"] == 1  # the typed turn has no timings
    assert 60 < fluency["words_per_minute"] < 250  # JFK speaks slowly, with long pauses
    assert fluency["mean_run_words"] >= 1 and 0 < fluency["pause_ratio"] < 1
    assert all(0 <= u["probability"] < 0.5 for u in fluency["unsure_words"])
