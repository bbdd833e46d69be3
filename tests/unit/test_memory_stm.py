from tutor_app.tutor.turn_memory.stm import ShortTermMemory, ShortTermStore


class Clock:
    def __init__(self):
        self.t = 1_000_000.0

    def __call__(self):
        return self.t


def test_session_expires_after_ttl_without_activity():
    clock = Clock()
    stm = ShortTermMemory(ttl_seconds=24 * 3600, clock=clock)
    stm.add_turn("hello", "hi there")
    stm.add_note("room 4021")
    clock.t += 23.9 * 3600
    assert stm.notes() == ["room 4021"] and not stm.expired  # reading does not refresh activity
    clock.t += 0.2 * 3600
    assert stm.expired
    assert stm.notes() == [] and stm.turns() == [] and stm.recalled() == []


def test_activity_extends_the_ttl():
    clock = Clock()
    stm = ShortTermMemory(ttl_seconds=3600, clock=clock)
    stm.add_turn("a", "b")
    clock.t += 3000
    stm.add_turn("c", "d")
    clock.t += 3000
    assert stm.turns() == [("a", "b"), ("c", "d")]
    clock.t += 600
    assert stm.expired and stm.turns() == []


def test_store_ttl_configurable_and_expire_lists_only_stale_sessions():
    clock = Clock()
    store = ShortTermStore("alice", ttl_hours=10 / 3600, clock=clock)  # 10 s, as in seed 001's test
    store.session("old").add_note("x")
    clock.t += 5
    store.session("new").add_note("y")
    clock.t += 6
    assert store.expire() == ["old"]
    assert store.session("new").notes() == ["y"]
    assert "old" not in store
    assert store.session("old").notes() == []  # a new, empty session


def test_recalled_memories_and_last_question():
    stm = ShortTermMemory(clock=Clock())
    stm.set_recalled(["hit1", "hit2"])
    stm.set_question("what coffee do I like?", None)
    assert stm.recalled() == ["hit1", "hit2"] and stm.last_question == "what coffee do I like?"
    stm.clear()
    assert stm.recalled() == [] and stm.last_question == ""
