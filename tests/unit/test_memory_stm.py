from tutor_app.memory.stm import ShortTermMemory


class Clock:
    def __init__(self):
        self.t = 1_000_000.0

    def __call__(self):
        return self.t


def test_session_expires_after_ttl_without_activity():
    clock = Clock()
    stm = ShortTermMemory("alice", ttl_hours=24, clock=clock)
    stm.add_turn("s1", "user", "hello")
    stm.add_memo("s1", "room 4021")
    clock.t += 23.9 * 3600
    assert stm.memos("s1") == ["room 4021"]  # reading does not refresh activity
    clock.t += 0.2 * 3600
    assert "s1" not in stm
    assert stm.memos("s1") == [] and stm.recent("s1") == []


def test_activity_extends_the_ttl():
    clock = Clock()
    stm = ShortTermMemory("alice", ttl_hours=1, clock=clock)
    stm.add_turn("s1", "user", "a")
    clock.t += 3000
    stm.add_turn("s1", "assistant", "b")
    clock.t += 3000
    assert stm.recent("s1") == [("user", "a"), ("assistant", "b")]
    clock.t += 3600
    assert stm.expire() == ["s1"]


def test_configurable_ttl_and_expire_lists_only_stale_sessions():
    clock = Clock()
    stm = ShortTermMemory("alice", ttl_hours=10 / 3600, clock=clock)  # 10 s, as in seed 001's test
    stm.add_memo("old", "x")
    clock.t += 5
    stm.add_memo("new", "y")
    clock.t += 6
    assert stm.expire() == ["old"]
    assert stm.memos("new") == ["y"]


def test_recalled_memories_and_last_question():
    stm = ShortTermMemory("alice", clock=Clock())
    stm.set_recalled("s", ["hit1", "hit2"])
    stm.set_question("s", "what coffee do I like?", None)
    assert stm.recalled("s") == ["hit1", "hit2"]
    assert stm.session("s").last_question == "what coffee do I like?"
    stm.clear_recalled("s")
    assert stm.recalled("s") == []
    stm.forget()
    assert "s" not in stm
