"""Every audio mode the Settings window offers lets the learner interrupt the tutor, as its
labels say ("Laptop speakers: Tutor cancels its own voice, so you can still interrupt
it"). Choosing laptop speakers once saved `barge_in = false`: interruption was off in
exactly the mode the echo canceller was built for."""
from __future__ import annotations

import pytest

from tests.ui.test_settings_dialog import _services
from tutor_app.paths import AppPaths
from tutor_app.settings import Settings
from tutor_app.ui.settings_dialog import SettingsDialog


@pytest.mark.parametrize("mode", ["mode_speaker", "mode_headset", "mode_auto"])
def test_every_audio_mode_saved_from_settings_lets_the_learner_interrupt(qtbot, settings, mode):
    settings.speech.barge_in = False  # what the old dialog wrote for laptop speakers
    settings.save()
    dialog = SettingsDialog(_services(settings))
    qtbot.addWidget(dialog)
    getattr(dialog, mode).setChecked(True)
    assert "interrupt" in dialog.mode_speaker.text() and "interrupt" in dialog.mode_headset.text()
    with qtbot.waitSignal(dialog.accepted, timeout=3000):
        dialog.save_button.click()
    again = Settings.load(AppPaths.resolve(settings.paths.data_dir))
    assert again.speech.barge_in is True
    assert again.speech.audio_mode == {"mode_speaker": "speaker", "mode_headset": "headset",
                                       "mode_auto": "auto"}[mode]
