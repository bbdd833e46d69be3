"""`tutor-app call --live` edges that need no audio: device listing, no microphone."""
from __future__ import annotations

from tests.unit.call_fakes import FakeSd
from tutor_app.cli import main
from tutor_app.speech import sound_devices


def test_list_devices(monkeypatch, data_dir, capsys):
    monkeypatch.setattr(sound_devices, "load_sounddevice", lambda: FakeSd())
    assert main(["call", "--live", "--list-devices"]) == 0
    out = capsys.readouterr().out
    assert "fake mic" in out and "fake speaker" in out


def test_no_microphone_means_no_call(monkeypatch, data_dir, capsys):
    monkeypatch.setattr(sound_devices, "load_sounddevice", lambda: FakeSd(inputs=False))
    assert main(["call", "--live", "--max-seconds", "1"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no microphone" in err[0]


def test_goodbye_is_recognised():
    from tutor_app.commands.live_call import GOODBYE

    assert GOODBYE.search("Thanks. Goodbye.") and GOODBYE.search("ok bye-bye")
    assert not GOODBYE.search("I bought a new bike")
