"""The memory store on real LanceDB with the bundled MiniLM embedder."""
from __future__ import annotations

import json
from datetime import timedelta

import pytest

from tests.memory_fixtures import embedder, files_containing, open_profile  # noqa: F401 (fixtures)
from tutor_app.core.types import EmotionScore
from tutor_app.errors import TutorError
from tutor_app.memory.storage.schema import utcnow

pytestmark = pytest.mark.slow


def test_profiles_are_isolated(open_profile):
    a, b = open_profile("alice"), open_profile("bob")
    a.add("My name is Alice and I love lattes", category="name")
    b.add("My name is Bob", category="name")
    for store, mine, other in ((a, "Alice", "Bob"), (b, "Bob", "Alice")):
        texts = [m.text for m in store.list()]
        assert any(mine in t for t in texts) and not any(other in t for t in texts)
        assert all(other not in h.text for h in store.search("what is my name?", k=10))
        assert all(other not in h.text for h in store.recall("what's my name?").hits)
        assert other not in json.dumps(store.profile_view())
        from tutor_app.memory.storage.transfer import export_profile

        assert other not in json.dumps(export_profile(store))
    assert b.recall("what coffee do I like?").hits == []  # Alice's latte stays hers


def test_profile_name_with_quotes_cannot_escape_the_filter(open_profile):
    a = open_profile("alice")
    a.add("Alice's secret")
    sneaky = open_profile("x' OR profile != 'x")
    assert sneaky.list() == [] and sneaky.count() == 0


def test_semantic_recall_latte(open_profile):
    s = open_profile()
    s.add("I love lattes")
    s.add("I went to Busan last summer")
    s.add("My sister works at a bank")
    hits = s.recall("what coffee do I like?").hits
    assert hits and hits[0].text == "I love lattes"
    assert hits[0].reason in ("semantic", "slot:preference")


def test_slot_recall_of_the_name(open_profile):
    s = open_profile()
    s.add("Hi, call me Minji, that's my name.")
    s.add("I had kimchi stew for lunch.")
    s.add("The traffic was terrible this morning.")
    hits = s.recall("What's my name?").hits
    assert hits[0].text.startswith("Hi, call me Minji")
    assert hits[0].reason == "slot:name"


def test_emotion_recall_brings_back_the_same_feeling(open_profile):
    s = open_profile()
    s.add("My teacher praised my presentation, I was so happy", emotion=EmotionScore("joy", 0.85), source="gate")
    s.add("My bus was late.", emotion=EmotionScore("annoyance", 0.7), source="gate")
    hits = s.recall("I feel great today!", emotions=[EmotionScore("joy", 0.9), EmotionScore("neutral", 0.05)]).hits
    assert [h.text for h in hits if h.reason.startswith("emotion:")] == [
        "My teacher praised my presentation, I was so happy"]
    assert hits[0].reason == "emotion:joy"
    # A weak feeling does not trigger emotion recall.
    assert not [h for h in s.recall("I feel okay", emotions=[EmotionScore("joy", 0.3)]).hits
                if h.reason.startswith("emotion:")]


def test_top3_ordering_relevance_then_recency(open_profile):
    s = open_profile()
    now = utcnow()
    s.add("I love lattes", created_at=now - timedelta(days=30))
    s.add("My favourite coffee is a flat white", created_at=now - timedelta(days=1))
    s.add("I drink an americano every morning", created_at=now - timedelta(days=5))
    s.add("I like espresso after dinner", created_at=now - timedelta(days=3))
    s.add("My brother lives in Seoul", created_at=now)
    hits = s.recall("What coffee do I like?").hits
    assert len(hits) == 3
    assert all("Seoul" not in h.text for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert all(h.reason for h in hits)


def test_unseen_topic_returns_nothing(open_profile):
    s = open_profile()
    for t in ("I love lattes", "My name is Minji", "I work as a nurse in Daejeon", "I have a cat called Mochi",
              "My exam is on March 14th", "I went hiking with my sister Jiwon"):
        s.add(t)
    for q in ("What car do I drive?", "Which university did I graduate from?", "What's my favourite football team?"):
        assert s.recall(q).hits == [], q
        assert s.search(q) == [], q


def test_conflicts_newer_wins(open_profile):
    s = open_profile()
    now = utcnow()
    old = s.add("Occupation: teacher", category="occupation", created_at=now - timedelta(days=10))
    new = s.add("Occupation: nurse", category="occupation", created_at=now)
    hits = s.recall("What's my job?").hits
    ids = [h.id for h in hits]
    assert new.id in ids and old.id not in ids


def test_recall_updates_accessed_at(open_profile):
    s = open_profile()
    m = s.add("I love lattes")
    assert s.get(m.id).accessed_at is None
    s.recall("what coffee do I like?")
    s.flush()
    assert s.get(m.id).accessed_at is not None


def test_meta_round_trips_unchanged(open_profile):
    s = open_profile()
    meta = {"source_app": "diary", "tags": ["a", "b"], "nested": {"x": 1.5, "y": None}, "unicode": "커피"}
    s.add("I love lattes", meta=meta)
    assert s.search("what coffee do I like?")[0].memory.meta == meta


def test_temp_memo_never_reaches_long_term_memory(open_profile):
    from tutor_app.tutor.turn_memory.gate import decide
    from tutor_app.tutor.turn_memory.stm import ShortTermMemory

    s = open_profile()
    stm = ShortTermMemory()
    text = "Temp memo: the meeting room is 4021"
    d = decide(text, [EmotionScore("joy", 0.95)])
    if d.store:
        s.add(text)
    if d.temp_memo:
        stm.add_note(d.temp_memo)
    assert s.count() == 0 and stm.notes() == ["the meeting room is 4021"]


def test_merge_seed_example_and_history(open_profile):
    from tutor_app.memory.profile.merge import merge_extracted

    s = open_profile()
    merge_extracted(s, {"name": "영광", "interests": ["AI"]})
    merge_extracted(s, {"occupation": "개발자", "interests": ["영어"]})
    view = s.profile_view()
    assert view["name"] == "영광" and view["occupation"] == "개발자"
    assert view["interests"] == ["AI", "영어"]
    res = merge_extracted(s, {"occupation": "backend developer", "interests": "AI, travel",
                              "learning_goals": None, "preferences": [None, "slow speech"], "junk": 1})
    view = s.profile_view()
    assert view["occupation"] == "backend developer"
    assert view["history"]["occupation"] == ["개발자"]  # kept, not lost
    assert view["interests"] == ["AI", "영어", "travel"]
    assert view["preferences"] == ["slow speech"]
    assert res.superseded and "junk" in res.ignored
    old = [m for m in s.list() if m.meta.get("value") == "개발자"][0]
    assert old.superseded_by == [m for m in s.list() if m.meta.get("value") == "backend developer"][0].id


def test_merge_collapses_near_duplicates(open_profile):
    from tutor_app.memory.profile.merge import merge_extracted

    s = open_profile()
    merge_extracted(s, {"interests": ["travel", "AI", "soccer"]})
    merge_extracted(s, {"interests": ["Traveling", "artificial intelligence", "football", "baking", "baking"]})
    assert s.profile_view()["interests"] == ["travel", "AI", "soccer", "baking"]


def test_delete_is_physical(open_profile, tmp_path):
    s = open_profile()
    secret = "My bank PIN hint is ZEBRA-4417-QUOKKA"
    keep = s.add_many([{"text": "I love lattes"}, {"text": secret}, {"text": "I live in Busan"}])
    s.add_message("call-1", "assistant", "Hi! How was your day?")  # no vector: must survive the rewrite
    s.add_message("call-1", "user", secret)
    s.add_message("call-1", "assistant", "Got it, ZEBRA-4417-QUOKKA.")  # the exchange goes with the memory
    root = tmp_path / "memory.lancedb"
    assert files_containing(root, "ZEBRA-4417-QUOKKA")  # the check can see it while it exists
    s.delete(keep[1].id)
    assert files_containing(tmp_path, "ZEBRA-4417-QUOKKA") == []
    assert [m.text for m, _ in s.session_messages("call-1")] == ["Hi! How was your day?"]
    assert [m.text for m in s.list()] == ["I love lattes", "I live in Busan"]
    with pytest.raises(TutorError, match="no memory with id"):
        s.delete(keep[1].id)
    assert s.recall("what is my PIN hint?").hits == []


def test_clear_is_physical_and_only_this_profile(open_profile, tmp_path):
    a, b = open_profile("alice"), open_profile("bob")
    a.add("ALICE-ONLY-MARKER I love lattes")
    a.add_message("c1", "user", "ALICE-ONLY-MARKER said in a call")
    a.record_call("c1", utcnow(), utcnow(), report={"note": "ALICE-ONLY-MARKER"})
    b.add("Bob likes tea")
    assert a.clear() == 1
    assert files_containing(tmp_path, "ALICE-ONLY-MARKER") == []
    assert [m.text for m in b.list()] == ["Bob likes tea"]
    assert a.list() == [] and a.calls() == []


def test_cleanup_old_unimportant(open_profile):
    from tutor_app.memory.storage.maintenance import cleanup

    s = open_profile()
    now = utcnow()
    s.add("old and unimportant", importance=0.2, created_at=now - timedelta(days=40))
    s.add("old but important", importance=0.9, created_at=now - timedelta(days=40))
    s.add("new and unimportant", importance=0.2, created_at=now - timedelta(days=2))
    assert cleanup(s, days=30) == 1
    assert sorted(m.text for m in s.list()) == ["new and unimportant", "old but important"]


def test_export_import_round_trip(open_profile, tmp_path):
    from tutor_app.memory.storage.transfer import import_file, write_export

    a = open_profile("alice")
    a.add("I love lattes", category="preference", importance=0.8, meta={"k": "v"})
    a.add("My exam is on March 14th", category="schedule", created_at="2026-03-01T09:00:00Z")
    out = tmp_path / "alice.json"
    assert write_export(a, out) == 2
    b = open_profile("copy")
    res = import_file(b, out)
    assert res.imported == 2
    got = {m.text: m for m in b.list()}
    assert got["I love lattes"].meta == {"k": "v"} and got["I love lattes"].importance == pytest.approx(0.8)
    assert got["My exam is on March 14th"].created_at.isoformat().startswith("2026-03-01T09:00:00")
    assert import_file(b, out).imported == 0  # idempotent
    jl = tmp_path / "more.jsonl"
    jl.write_text('{"text": "I have a cat", "meta": {"from": "diary"}}\n{"text": "x", "importance": 7}\n')
    with pytest.raises(TutorError, match="item 2: importance must be between 0 and 1.*nothing imported"):
        import_file(b, jl)
    assert b.count() == 2


def test_selective_history(open_profile):
    from tutor_app.tutor.turn_memory.history import selective_history

    s = open_profile()
    s.add_message("call", "user", "My job interview at the hospital is on Friday")
    s.add_message("call", "assistant", "Great, let's practise interview answers.")
    for i in range(12):
        s.add_message("call", "user", f"Small talk line number {i} about the weather")
        s.add_message("call", "assistant", f"Reply {i}")
    s.add_message("other-call", "user", "My interview is at a bank")
    h = selective_history(s, "call", "What day is my hospital interview again?")
    assert [m.text for m in h.relevant] == ["My job interview at the hospital is on Friday",
                                           "Great, let's practise interview answers."]
    assert len(h.recent) == 10 and h.recent[-1].text == "Reply 11"
    assert all(m.session_id == "call" for m in h.messages())


def test_selective_history_falls_back_when_embedding_fails(open_profile):
    from tutor_app.tutor.turn_memory.history import selective_history

    s = open_profile()
    for i in range(12):
        s.add_message("call", "user", f"line {i}", embed=False)

    class Broken:
        def embed_one(self, text):
            raise RuntimeError("embedder down")

    s.embedder = Broken()
    h = selective_history(s, "call", "anything")
    assert h.fallback and h.relevant == [] and len(h.recent) == 10


def test_concurrent_writers_do_not_lose_rows(open_profile):
    import threading

    s = open_profile()
    vec = s.embedder.embed(["filler"])[0]
    errors = []

    def writer(n):
        try:
            for i in range(10):
                s.add(f"writer {n} memory {i}", vector=vec)
        except Exception as exc:  # noqa: BLE001 - a thread reports any failure to the test  # pragma: no cover
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert s.count() == 40 and len(s.index()) == 40


def test_a_second_process_view_sees_new_rows(open_profile, tmp_path):
    a1 = open_profile("alice")
    a2 = open_profile("alice")  # another MemoryDB on the same dir, as a second process would have
    a1.add("I love lattes")
    assert len(a2.index()) == 1
    assert a2.recall("what coffee do I like?").hits[0].text == "I love lattes"


def test_embedder_change_triggers_reembed(open_profile, tmp_path, embedder):
    from tutor_app.memory.storage.store import open_store

    db = tmp_path / "memory.lancedb"
    s = open_profile("alice")
    s.add("I love lattes")
    s.add_message("c1", "user", "I love lattes")
    s.add_message("c1", "assistant", "Lattes are great.")  # a tutor line has no vector
    s.close()

    class Renamed:
        name = "all-minilm-l6-v2-renamed"
        dim = embedder.dim
        calls = 0

        def embed(self, texts):
            Renamed.calls += 1
            return embedder.embed(texts)

        def embed_one(self, text):
            return embedder.embed_one(text)

    s2 = open_store(db, Renamed(), "alice")
    assert Renamed.calls == 2  # every stored vector was recomputed: one batch per table
    assert s2.recall("what coffee do I like?").hits[0].text == "I love lattes"
    assert [m.role for m, _ in s2.session_messages("c1")] == ["user", "assistant"]
    s2.close()


def test_calls_and_profiles(open_profile):
    a, b = open_profile("alice"), open_profile("bob")
    start = utcnow()
    call = a.record_call("s1", start)
    a.update_call(call.id, ended_at=start + timedelta(minutes=5), report={"wpm": 87}, extracted=True)
    (got,) = a.calls()
    assert got.extracted and got.report == {"wpm": 87} and got.ended_at > got.started_at
    assert b.calls() == []
    b.add("Bob likes tea")
    assert a.profiles() == ["alice", "bob"]


def test_relations_and_categories_are_resolved(open_profile):
    s = open_profile()
    s.add("This weekend I went hiking with my sister Jiwon.")
    s.add("Jiwon is moving to Seoul for a design job.")
    s.add("We adopted a shiba inu called Bori last year.")
    s.add("The traffic was terrible.")
    hits = s.recall("Do you remember what my sister does?").hits
    assert "Jiwon is moving to Seoul for a design job." in [h.text for h in hits]
    assert s.recall("What's my dog called?").hits[0].text.startswith("We adopted a shiba inu")
    assert s.recall("What's my cat's name?").hits == []  # no cat in memory: say "don't know"


def test_recall_while_a_background_writer_adds(open_profile):
    import threading

    s = open_profile()
    s.add("I love lattes")
    vec = s.embedder.embed(["filler"])[0]
    stop = threading.Event()
    errors = []

    def writer():
        try:
            i = 0
            while not stop.is_set() and i < 40:
                s.add(f"background memory {i}", vector=vec)
                i += 1
        except Exception as exc:  # noqa: BLE001 - a thread reports any failure to the test  # pragma: no cover
            errors.append(exc)

    t = threading.Thread(target=writer)
    t.start()
    try:
        for _ in range(20):
            assert s.recall("what coffee do I like?", touch=False).hits[0].text == "I love lattes"
    finally:
        stop.set()
        t.join()
    assert not errors
