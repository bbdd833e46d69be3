"""Thinking time: pause statistics of a call, the wait by level / setting / the learner's own
pauses (bounded), the stats in the call report, and reading them back from stored reports."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

import pytest

from tutor_app.call.options import LoopOptions
from tutor_app.call.pauses import LEVEL_THINKING_MS, MAX_MS, recent_pause_stats, thinking_ms, thinking_time_ms
from tutor_app.settings import SpeechSettings
from tutor_app.tutor.pause_stats import PauseStats
from tutor_app.tutor.report import TurnRecord, build_report


def test_stats_of_a_call():
    stats = PauseStats.from_pauses([400, 1200, 800, 600, 1000, 700, 900, 500, 1100, 2000])
    assert stats.count == 10
    assert stats.median_ms == 850.0
    assert stats.p90_ms == pytest.approx(1280.0)  # between the 9th (1200) and 10th (2000)
    assert PauseStats.from_pauses([]) == PauseStats(0, 0.0, 0.0)
    assert PauseStats.from_pauses([640]) == PauseStats(1, 640.0, 640.0)


def test_dict_round_trip_and_bad_dicts():
    stats = PauseStats.from_pauses([300, 900, 1500])
    assert PauseStats.from_dict(stats.to_dict()) == stats
    for bad in ({}, {"count": 2}, {"count": "x", "median_ms": 1, "p90_ms": 2}, None, [1, 2, 3],
                {"count": 2, "median_ms": 900, "p90_ms": 100}, {"count": -1, "median_ms": 0, "p90_ms": 0}):
        with pytest.raises(ValueError):
            PauseStats.from_dict(bad)


def test_default_by_level_and_setting():
    assert [thinking_time_ms(lv, 0, [], True) for lv in ("beginner", "intermediate", "advanced")] == [3000, 2000, 1500]
    assert thinking_time_ms("no-such-level", 0, [], True) == LEVEL_THINKING_MS["intermediate"]
    assert thinking_time_ms("beginner", 1200, [], True) == 1200  # the learner's choice beats the level
    assert thinking_time_ms("beginner", 99_000, [], True) == MAX_MS
    assert thinking_time_ms("beginner", 10, [], True) == 500


def _calls(*p90s, count=5):
    return [PauseStats(count, p90 * 0.6, p90) for p90 in p90s]


def test_follows_the_learners_pauses_within_bounds():
    # A learner whose long pauses are about 2 s gets more than the intermediate 2 s ...
    assert thinking_time_ms("intermediate", 0, _calls(1900, 2000, 2100), True) == 2600
    # ... a quick one less, but never below 60 % of the base wait ...
    assert thinking_time_ms("intermediate", 0, _calls(900, 1000, 1000), True) == 1300
    assert thinking_time_ms("intermediate", 0, _calls(200, 300, 250), True) == 1200
    assert thinking_time_ms("beginner", 0, _calls(200, 300, 250), True) == 1800
    # ... and never above the maximum.
    assert thinking_time_ms("beginner", 0, _calls(4800, 4900), True) == MAX_MS


def test_no_adaptation_when_off_or_too_little_history():
    assert thinking_time_ms("intermediate", 0, _calls(3000, 3000), False) == 2000
    assert thinking_time_ms("intermediate", 0, _calls(3000, count=2), True) == 2000  # 2 pauses: too few
    assert thinking_time_ms("intermediate", 0, [PauseStats()] * 5, True) == 2000  # calls without pauses


def test_only_recent_calls_count():
    old_slow, recent_quick = _calls(4000, 4000, 4000, 4000, 4000), _calls(1000, 1000, 1000, 1000, 1000)
    assert thinking_time_ms("intermediate", 0, old_slow + recent_quick, True) == 1300


def test_report_keeps_the_pause_stats():
    turns = [TurnRecord(100.0, "I am planning to visit my aunt", "Nice!", 3.0)]
    live = build_report("s1", 90.0, 160.0, turns, pauses_ms=[900, 1400, 600])
    assert PauseStats.from_dict(live.to_dict()["pauses"]) == PauseStats.from_pauses([900, 1400, 600])
    assert build_report("s2", 90.0, 160.0, turns, pauses_ms=[]).pauses["count"] == 0  # live, no pauses
    assert build_report("s3", 90.0, 160.0, turns).pauses == {}  # typed: nothing measured


def _store(reports):
    start = datetime(2025, 1, 1, tzinfo=timezone.utc)
    calls = [SimpleNamespace(id=f"c{i}", started_at=start + timedelta(days=i), report=r) for i, r in enumerate(reports)]
    return SimpleNamespace(calls=lambda: list(reversed(calls)))  # order must not matter


def test_recent_stats_from_stored_reports():
    reports = [{"pauses": PauseStats.from_pauses([i * 100 + 500] * 4).to_dict()} for i in range(7)]
    reports.insert(3, {})  # a typed call
    reports.insert(5, {"pauses": {"count": "broken"}})  # a hand-edited report
    stats = recent_pause_stats(_store(reports), limit=5)
    assert [s.p90_ms for s in stats] == [700.0, 800.0, 900.0, 1000.0, 1100.0]  # the last 5, oldest first
    assert recent_pause_stats(_store([]), limit=5) == []

    class Broken:
        def calls(self):
            raise RuntimeError("database closed")

    assert recent_pause_stats(Broken()) == []


def test_the_thinking_time_from_settings_and_history():
    speech = SimpleNamespace(thinking_ms=0, adapt_thinking=True, silence_ms=600)
    settings = SimpleNamespace(speech=speech, tutor=SimpleNamespace(level="beginner"))
    memory = _store([{"pauses": PauseStats(6, 2000.0, 3500.0).to_dict()}] * 3)
    engine = SimpleNamespace(services=SimpleNamespace(memory=memory))
    assert thinking_ms(settings, engine) == 4550  # 3500 x 1.3
    speech.adapt_thinking = False
    assert thinking_ms(settings, engine) == 3000
    assert thinking_ms(settings) == 3000  # no engine: no history


def test_the_call_options_carry_the_thinking_time_and_the_speech_settings():
    speech = SpeechSettings(thinking_ms=0, adapt_thinking=True, silence_ms=700, min_speech_ms=200, barge_in=False,
                            audio_mode="headset")
    settings = SimpleNamespace(speech=speech, tutor=SimpleNamespace(level="beginner"))
    memory = _store([{"pauses": PauseStats(6, 2000.0, 3500.0).to_dict()}] * 3)
    options = LoopOptions.from_settings(settings, engine=SimpleNamespace(services=SimpleNamespace(memory=memory)))
    assert options.endpointing.thinking_ms == 4550 and options.endpointing.vad_silence_ms == 700
    assert options.endpointing.min_speech_ms == 200
    assert not options.interruption.enabled and options.echo.mode == "headset"
    # the segmenter's own window: the thinking time once a judge decides, else the plain silence
    assert options.endpointing.segmenter().silence_ms == 700
    assert options.with_judge(True).endpointing.segmenter().silence_ms == 4550


@pytest.mark.slow
def test_pauses_stored_with_the_call_and_read_back_per_profile(tmp_path):
    """Real LanceDB store: the call-end work stores the pauses in the report, a later
    re-run of that work (recovery after a failed extraction) keeps them, and only
    the profile's own calls are read back."""
    from tests.memory_fixtures import DimOnlyEmbedder
    from tutor_app.memory.storage.store import open_store
    from tutor_app.tutor.lifecycle import process_call

    db = tmp_path / "memory.lancedb"
    minji, joon = open_store(db, DimOnlyEmbedder(), "minji"), open_store(db, DimOnlyEmbedder(), "joon")
    try:
        engine = SimpleNamespace(services=SimpleNamespace(memory=minji, chat_model=lambda: None),
                                 settings=SimpleNamespace(paths=SimpleNamespace(live_dir=tmp_path / "live")))
        turns = [TurnRecord(1000.0, "Next month I am planning to visit my aunt", "Lovely!", 4.0)]
        process_call(engine, "call-1", turns, 990.0, 1060.0, pauses_ms=[900, 1300, 1700])
        expected = PauseStats.from_pauses([900, 1300, 1700])
        assert recent_pause_stats(minji) == [expected]
        process_call(engine, "call-1", None, None, 1060.0)  # finished again: no live pauses given
        assert recent_pause_stats(minji) == [expected]
        assert recent_pause_stats(joon) == []
    finally:
        minji.close()
        joon.close()
