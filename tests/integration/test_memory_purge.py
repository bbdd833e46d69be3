"""Deletion that leaves nothing behind (issue #13): the exchange a memory came from, quotes
in call reports, and a deletion interrupted at any step, finished at the next open.
Real LanceDB files; vectors are passed in, so no model is loaded."""
from __future__ import annotations

import numpy as np
import pytest

from tests.memory_fixtures import DimOnlyEmbedder, files_containing
from tutor_app.memory.storage import purge
from tutor_app.memory.storage.schema import utcnow

PIN_LINE = "My bank PIN is 4921, remember that"
PIN_REPLY = "Okay, I will remember that your PIN is 4921."


def _vec(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(384).astype(np.float32)
    return v / np.linalg.norm(v)


def _open(db):
    from tutor_app.memory.storage.store import open_store

    return open_store(db, DimOnlyEmbedder(), "alice")


def _pin_profile(db, extra_rows: int = 0):
    """A call in which the learner told their PIN and the tutor repeated it, plus an
    unrelated exchange, a call report quoting both lines and (optionally) many memories."""
    s = _open(db)
    if extra_rows:
        vecs = np.random.default_rng(1).standard_normal((extra_rows, 384)).astype(np.float32)
        s.add_many([{"text": f"filler memory {i}"} for i in range(extra_rows)], vectors=vecs)
    for role, text in (("user", "I like jazz a lot"), ("assistant", "Jazz is wonderful."),
                       ("user", PIN_LINE), ("assistant", PIN_REPLY),
                       ("user", "What should we talk about?"), ("assistant", "Let's talk about music.")):
        s.add_message("s1", role, text, embed=False)
    mem = s.add(PIN_LINE, source="trigger", session_id="s1", vector=_vec(2))
    keep = s.add("I like jazz a lot", session_id="s1", vector=_vec(3))
    call = s.record_call("s1", utcnow())
    s.update_call(call.id, report={"corrections": [
        {"original": "My bank PIN is 4921", "better": "My bank PIN is 4921.", "why": "a full stop"},
        {"original": "I like jazz a lot", "better": "I really like jazz", "why": "word order"}],
        "fluency": {"spoken_turns": 3, "unsure_words": [{"word": "4921", "probability": 0.3},
                                                        {"word": "jazz", "probability": 0.4}]}})
    return s, mem, keep


def test_delete_takes_the_exchange_and_the_report_quotes_with_it(tmp_path):
    db = tmp_path / "memory.lancedb"
    s, mem, keep = _pin_profile(db)
    assert s.delete(mem.id).id == mem.id
    assert files_containing(tmp_path, "4921") == []
    texts = [m.text for m, _ in s.session_messages("s1")]
    assert texts == ["I like jazz a lot", "Jazz is wonderful.", "What should we talk about?",
                     "Let's talk about music."]
    assert [m.id for m in s.list()] == [keep.id]
    report = s.calls()[0].report
    assert [c["original"] for c in report["corrections"]] == ["I like jazz a lot"]
    assert report["fluency"] == {"spoken_turns": 3, "unsure_words": [{"word": "jazz", "probability": 0.4}]}
    assert not purge.journal_path(db).exists()


def test_an_extracted_paraphrase_takes_its_exchange_too(tmp_path):
    db = tmp_path / "memory.lancedb"
    s, mem, _ = _pin_profile(db)
    s.delete(mem.id)
    s.add_message("s2", "user", "Also my locker code is 5532, by the way", embed=False)
    s.add_message("s2", "assistant", "Locker 5532, noted.", embed=False)
    s.add_message("s2", "user", "My locker is near the gym", embed=False)
    extracted = s.add("locker code is 5532", source="extraction", session_id="s2", vector=_vec(4))
    s.delete(extracted.id)
    assert files_containing(tmp_path, "5532") == []
    assert [m.text for m, _ in s.session_messages("s2")] == ["My locker is near the gym"]


def test_said_in():
    assert purge.said_in("My bank PIN is 4921, remember that", "My bank PIN is 4921, remember that")
    assert purge.said_in("bank PIN is 4921", "Oh, my bank PIN is 4921.")
    assert not purge.said_in("I like jazz", "I like rock")
    assert purge.said_in("jazz", "I like jazz a lot")  # an extracted interest: the line it came from
    assert not purge.said_in("jazz", "I do jazzercise")  # whole words only
    assert not purge.said_in("bank PIN is 4921", "My bank is near the park")
    assert purge.said_in("PIN 4921 for the bank", "My bank PIN is 4921")  # an extracted paraphrase
    assert not purge.said_in("PIN 4921 for the bank", "My bank PIN is 4921", paraphrase=False)


MEMORY_STAGES = ["journal", "reports", "logs", "messages", "memories", "purge:memories", "purge:messages",
                 "purge:calls", "done"]
CLEAR_STAGES = ["journal", "logs", "messages", "calls", "memories", "purge:memories", "purge:messages",
                "purge:calls", "done"]


class Crash(Exception):
    pass


@pytest.fixture
def crash_at(monkeypatch):
    def arm(stage: str) -> None:
        def hook(name: str) -> None:
            if name == stage:
                raise Crash(stage)
        monkeypatch.setattr(purge, "HOOK", hook)

    yield arm
    monkeypatch.setattr(purge, "HOOK", None)


@pytest.mark.parametrize("stage", MEMORY_STAGES)
def test_a_delete_interrupted_at_any_step_is_finished_at_the_next_open(tmp_path, crash_at, monkeypatch, stage):
    db = tmp_path / "memory.lancedb"
    s, mem, keep = _pin_profile(db)
    crash_at(stage)
    with pytest.raises(Crash):
        s.delete(mem.id)
    assert purge.journal_path(db).exists()
    monkeypatch.setattr(purge, "HOOK", None)
    again = _open(db)  # the next start
    assert files_containing(tmp_path, "4921") == []
    assert not purge.journal_path(db).exists()
    assert [m.id for m in again.list()] == [keep.id]
    assert again.delete(mem.id) is None  # "already deleted": finished, not "no memory with id"
    assert len(again.session_messages("s1")) == 4


@pytest.mark.parametrize("stage", CLEAR_STAGES)
def test_a_clear_interrupted_at_any_step_is_finished_at_the_next_open(tmp_path, crash_at, monkeypatch, stage):
    db = tmp_path / "memory.lancedb"
    s, _, _ = _pin_profile(db)
    bob = s.for_profile("bob")
    bob.add("Bob's own memory", vector=_vec(5))
    crash_at(stage)
    with pytest.raises(Crash):
        s.clear()
    monkeypatch.setattr(purge, "HOOK", None)
    again = _open(db)
    for needle in ("4921", "jazz", "talk about music"):
        assert files_containing(tmp_path, needle) == [], needle
    assert again.list() == [] and again.session_messages(None) == [] and again.calls() == []
    assert [m.text for m in again.for_profile("bob").list()] == ["Bob's own memory"]


def test_a_hidden_id_without_a_journal_is_erased_by_delete_and_by_cleanup(tmp_path):
    """The state the old code left after a kill: the row masked, its text still in a file."""
    from tutor_app.memory.storage import schema as S

    db = tmp_path / "memory.lancedb"
    s, mem, _ = _pin_profile(db)
    s._db.delete(S.MEMORIES, f"id = {S.sql_str(mem.id)}")
    s._db.delete(S.MESSAGES, "text LIKE '%4921%'")
    assert s.get(mem.id) is None and files_containing(db, "4921")
    assert s.delete(mem.id) is None
    # (the old code never scrubbed call reports: only the two tables it touched are checked)
    assert files_containing(db / "memories.lance", "4921") == files_containing(db / "messages.lance", "4921") == []
    with pytest.raises(Exception, match="no memory with id"):
        s.delete("0000000000000000")

    other = s.add("temporary secret 7777", vector=_vec(6))
    s._db.delete(S.MEMORIES, f"id = {S.sql_str(other.id)}")
    assert files_containing(db, "7777")
    from tutor_app.memory.storage.maintenance import cleanup

    cleanup(s, 30)
    s.erase_hidden()
    assert files_containing(tmp_path, "7777") == []


def test_a_torn_journal_still_purges_everything(tmp_path):
    from tutor_app.memory.storage import schema as S

    db = tmp_path / "memory.lancedb"
    s, mem, _ = _pin_profile(db)
    s._db.delete(S.MEMORIES, f"id = {S.sql_str(mem.id)}")
    s._db.delete(S.MESSAGES, "text LIKE '%4921%'")
    purge.journal_path(db).write_text('{"version": 1, "jobs": [{"prof', encoding="utf-8")
    _open(db)
    assert files_containing(db / "memories.lance", "4921") == files_containing(db / "messages.lance", "4921") == []
    assert not purge.journal_path(db).exists()
