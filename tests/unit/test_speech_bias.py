"""The speech bias list: names and uncommon terms from one profile, nothing else, bounded."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

import pytest

from tutor_app.speech.bias import MAX_CHARS, MAX_TERMS, BiasList, bias_terms, names_in, transcribe_with
from tutor_app.speech.stt import bias_arguments

T0 = datetime(2026, 11, 1, tzinfo=timezone.utc)


@dataclass
class Mem:
    text: str
    importance: float = 0.5
    created_at: datetime = T0
    accessed_at: datetime | None = None
    superseded_by: str = ""
    meta: dict = field(default_factory=dict)

    @property
    def current(self) -> bool:
        return not self.superseded_by


MEMORIES = [
    Mem("My best friend is called Haneul"),
    Mem("I meet my boyfriend in Hongdae every Friday"),
    Mem("I have a dog named Kongi"),
    Mem("I work as a UX designer at Naver in Seongnam"),
    Mem("My sister Jiwoo lives in Busan with her cat Dubu."),
]


def test_names_only_from_the_memories():
    bias = bias_terms({"name": "Minji"}, MEMORIES)
    assert bias.terms[0] == "Minji"  # the learner's own name first
    assert set(bias.terms) == {"Minji", "Haneul", "Hongdae", "Kongi", "Naver", "Seongnam", "Jiwoo",
                               "Busan", "Dubu"}
    # Not a word of the memories beyond the names: no pronouns, verbs, days, common nouns.
    assert not {"My", "I", "best", "friend", "Friday", "dog", "sister", "called"} & set(bias.terms)


def test_a_memory_with_a_secret_gives_nothing():
    for text in ("My bank PIN is 4921", "my password is hunter2", "I owe 300 dollars to the bank",
                 "I'm scared my visa will be rejected on Monday"):
        assert bias_terms({}, [Mem(text)]).terms == (), text


def test_sentence_openers_and_possessives():
    assert names_in("Yesterday I saw Haneul's dog. Kongi barked at Minho!") == ["Haneul", "Minho"]
    assert names_in("We went to Lotte World, then to the Han River.") == ["Lotte", "Han"]  # World, River: common nouns
    assert names_in("I’m learning English with Mr Kim at 7 PM") == ["Kim"]


def test_bounded_in_terms_and_characters():
    many = [Mem(f"I met Person{chr(65 + i // 26)}{chr(97 + i % 26)}name at the party") for i in range(200)]
    bias = bias_terms({}, many)
    assert len(bias.terms) <= MAX_TERMS and len(bias.text) <= MAX_CHARS
    assert bias_terms({}, many, max_terms=5).terms == bias.terms[:5]
    long_names = [Mem(f"I know {'Xy' * 40}{i} from school") for i in range(10)]
    assert len(bias_terms({}, long_names).text) <= MAX_CHARS


def test_most_recent_first_then_most_important():
    mems = [Mem("I met Oldfriend at school", importance=0.5, created_at=T0),
            Mem("I met Newfriend at work", importance=0.5, created_at=T0 + timedelta(days=3)),
            Mem("I love Seonghwa", importance=0.9, created_at=T0),
            Mem("My dog is Kongi", importance=0.4, created_at=T0 + timedelta(days=3, hours=1))]
    # Newest day first (Newfriend, then Kongi said later that day but less important).
    assert bias_terms({}, mems).terms == ("Newfriend", "Kongi", "Seonghwa", "Oldfriend")
    assert bias_terms({}, mems, max_terms=2).terms == ("Newfriend", "Kongi")
    # A memory recalled lately counts as recent again.
    mems[0].accessed_at = T0 + timedelta(days=5)
    assert bias_terms({}, mems).terms[0] == "Oldfriend"


def test_common_nouns_inside_names_are_left_out():
    bias = bias_terms({"occupation": "Nurse at Severance Hospital"},
                      [Mem("We went to Lotte World, then to the Han River and Seoul Station.")])
    assert bias.terms == ("Severance", "Lotte", "Han", "Seoul")


def test_superseded_memories_and_profile_fields():
    mems = [Mem("I work at Samsung", superseded_by="x"), Mem("I work at Kakao")]
    bias = bias_terms({"name": "Jiwoo Park", "occupation": "Nurse at Severance Hospital"}, mems)
    assert bias.terms[:2] == ("Jiwoo", "Park") and "Severance" in bias.terms
    assert "Kakao" in bias.terms and "Samsung" not in bias.terms


def test_new_words_from_past_calls_come_last_and_bounded():
    words = ["commute", "procrastinate", "the", "take it easy", "a very long phrase that is not a word at all",
             "42nd"] + [f"word{i}" for i in range(20)]
    bias = bias_terms({}, [Mem("I have a dog named Kongi")], words)
    assert bias.terms[:4] == ("Kongi", "commute", "procrastinate", "take it easy")
    assert "the" not in bias.terms and "42nd" not in bias.terms
    assert len(bias.terms) <= 1 + 8


def test_duplicates_once_case_insensitive():
    bias = bias_terms({"name": "Haneul"}, [Mem("I called Haneul"), Mem("Then HANEUL called me")])
    assert bias.terms == ("Haneul",)


def test_empty_profile_gives_an_empty_list():
    bias = bias_terms(None, [])
    assert not bias and bias.text == "" and len(bias) == 0
    assert bias_arguments(bias, "hotwords") == {}


def test_whisper_arguments():
    bias = BiasList(("Haneul", "Kongi"))
    assert bias_arguments(bias, "hotwords") == {"hotwords": "Haneul, Kongi"}
    assert bias_arguments(bias, "prompt") == {"initial_prompt": "Haneul, Kongi."}
    assert bias_arguments(bias, "off") == {}
    with pytest.raises(ValueError):
        bias_arguments(bias, "shout")


class PlainStt:
    """A SpeechToText without the bias argument (older seams, fakes)."""

    def __init__(self):
        self.calls = []

    def transcribe(self, audio):
        self.calls.append(audio)
        return "plain"


class BiasedStt:
    def transcribe(self, audio, bias=None):
        return bias


def test_transcribe_with_passes_a_list_only_when_there_is_one():
    plain = PlainStt()
    assert transcribe_with(plain, "clip", BiasList()) == "plain"
    assert transcribe_with(plain, "clip", None) == "plain"
    bias = BiasList(("Kongi",))
    assert transcribe_with(BiasedStt(), "clip", bias) is bias


def test_a_transcript_that_reads_the_list_back_is_recognised():
    from tutor_app.speech.bias import echoes_list

    bias = BiasList(("Minji", "Haneul", "Kongi", "Hongdae", "Seonghwa Park"))
    assert echoes_list("Minji, Haneul, Kongi, Hongdae.", bias)
    assert echoes_list("Haneul Kongi Seonghwa Park", bias)
    # Real speech with names in it is not an echo, nor are one or two names alone.
    assert not echoes_list("I walked Kongi with Haneul and Minji in Hongdae yesterday evening.", bias)
    assert not echoes_list("Haneul and Kongi.", bias)
    assert not echoes_list("Kongi!", bias)
    assert not echoes_list("Minji, Haneul, Kongi", BiasList())


def test_near_misses_of_a_listed_name_are_put_right():
    from tutor_app.speech.bias import snap_names

    bias = BiasList(("Haneul", "Bukhansan", "Minji", "Hongdae", "Seonghwa", "take it easy"))
    assert snap_names("On Saturday we hiked up Buckhansan with Hanul.", bias) == \
        "On Saturday we hiked up Bukhansan with Haneul."
    assert snap_names("I met Seongwa's sister in Hong-dae", bias) == "I met Seonghwa's sister in Hongdae"
    # Not close enough, not capitalised, common, or a different name: left alone.
    for text in ("My name is Mingi.", "I had lunch with handle.", "We drove a Honda to Hyundai.",
                 "He said Hi to Hannah.", "Minji and Haneul"):
        assert snap_names(text, bias) == text
    assert snap_names("I met Hanul", BiasList()) == "I met Hanul"


def test_bench_counts_a_name_only_as_a_whole_word():
    from tutor_app.bench.names import MEMORIES, SENTENCES, heard

    assert heard("Haneul", "Yesterday, Haneul's dog barked.") and heard("Hongdae", "in Hong-dae")
    assert not heard("Haneul", "I had lunch with handle") and not heard("Mapo", "Mapofan")
    names = [n for _s, ns in SENTENCES for n in ns]
    assert len(SENTENCES) >= 8 and len(set(names)) >= 12  # the brief's floor for the bench
    texts = " ".join(m[0] for m in MEMORIES)
    assert all(n in texts for n in names)  # every name spoken is one the profile holds


def test_a_profile_named_after_the_learner_seeds_the_first_call():
    """Before any memory, the profile's own name is the one name the app can expect."""
    from types import SimpleNamespace

    from tutor_app.speech.bias import build_bias

    def store(profile, memories=()):
        return SimpleNamespace(profile=profile, list=lambda include_superseded=False: list(memories),
                               calls=lambda: [])

    assert build_bias(store("minji")).terms[:1] == ("Minji",)
    assert not build_bias(store("default")) and not build_bias(store("work 2"))
    assert not build_bias(store("the"))  # a common word is no name
