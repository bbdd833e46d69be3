"""A learner profile built up over 20 calls, for `tutor-app bench names` and the bias list's
bound test: each call leaves a few memories with names in them (friends, family, places,
work) and a few new words, one call a day. The names the bench's sentences use
(bench/names.py SENTENCES) are in the later calls, mixed with others, so the list's bound
has to choose; the earlier calls hold names the learner has not talked about for weeks.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

CALL_COUNT = 20
FIRST_DAY = datetime(2026, 10, 1, 19, 0, tzinfo=timezone.utc)

# Per call: (memories as (text, category, importance), new words of that call's report).
CALLS: tuple[tuple[tuple[tuple[str, str, float], ...], tuple[str, ...]], ...] = (
    ((("Name: Minji", "name", 0.9), ("I studied design at Hongik University", "fact", 0.6),
      ("My old roommate Yerin moved to Gwangju", "fact", 0.5)), ("roommate", "graduate")),
    ((("Occupation: junior designer at Coupang", "occupation", 0.8),
      ("My team lead Daehyun is very strict", "fact", 0.6)), ("strict", "deadline")),
    ((("I went to Gyeongju with my parents", "fact", 0.5), ("My mother runs a bakery in Suwon", "fact", 0.6)),
     ("bakery",)),
    ((("I play futsal with Taeyang and Sungmin on Thursdays", "interest", 0.6),), ("futsal", "league")),
    ((("My cousin Eunbi studies in Toronto", "fact", 0.5), ("I want to visit Vancouver someday", "goal", 0.7)),
     ("abroad",)),
    ((("I take pottery classes in Yeonnam with Hyejin", "interest", 0.6),), ("pottery", "kiln")),
    ((("We had a team dinner in Euljiro", "fact", 0.5), ("My coworker Jaewon is leaving Coupang", "fact", 0.5)),
     ("resign",)),
    ((("I went surfing in Yangyang with Soojin", "interest", 0.6),
      ("My grandmother lives in Jeonju", "fact", 0.6)), ("surfboard", "wetsuit")),
    ((("I read webtoons on Kakaopage every night", "interest", 0.5),), ("binge",)),
    ((("My English teacher Mr Whitfield was from Auckland", "fact", 0.5),), ("accent",)),
    ((("Occupation: UX designer at Naver", "occupation", 0.8), ("I design screens in Figma every day", "fact", 0.6),
      ("My new manager Dohyun is kind", "fact", 0.6)), ("onboarding", "wireframe")),
    ((("My best friend is called Haneul", "fact", 0.6), ("Haneul works at Toss", "fact", 0.5)), ("fintech",)),
    ((("I meet my boyfriend Seonghwa in Hongdae", "fact", 0.6),), ("anniversary",)),
    ((("I have a dog named Kongi", "fact", 0.6), ("Kongi's vet is Dr Baek in Mangwon", "fact", 0.5)),
     ("leash", "neutered")),
    ((("My sister Jiwoo lives in Busan", "fact", 0.6), ("Jiwoo's husband Wonho is a chef", "fact", 0.5)),
     ("in-laws",)),
    ((("Our cat is called Dubu", "fact", 0.5),), ("litter",)),
    ((("I like hiking on Bukhansan with my friend Minho", "interest", 0.6),), ("summit", "trail")),
    ((("I grew up in Ilsan and now I live in Mapo", "fact", 0.5),), ("commute",)),
    ((("I have a job interview at Kakao next month", "schedule", 0.7), ("My mentor Seojun works at Kakao", "fact", 0.5)),
     ("portfolio",)),
    ((("My bank PIN is 4921", "fact", 0.4), ("I love spicy rice cakes", "preference", 0.5)),
     ("exhausted", "take it easy")),
)
assert len(CALLS) == CALL_COUNT


def call_day(index: int) -> datetime:
    return FIRST_DAY + timedelta(days=index)


def fill_store(store: Any) -> None:
    """Add the 20 calls' memories (profile fields as extraction stores them, the older value
    superseded) and call records with their new words, each call on its own day."""
    latest: dict[str, str] = {}
    for i, (memories, words) in enumerate(CALLS):
        when = call_day(i)
        session = f"bench-call-{i + 1:02d}"
        store.record_call(session, when, when + timedelta(minutes=12), extracted=True,
                          report={"new_words": list(words)})
        for text, category, importance in memories:
            meta = {}
            if category in ("name", "occupation") and text.startswith(("Name: ", "Occupation: ")):
                meta = {"field": category, "value": text.split(": ", 1)[1]}
            mem = store.add(text, category=category, importance=importance, meta=meta, source="extraction",
                            session_id=session, created_at=when)
            if meta:
                if category in latest:
                    store.supersede(latest[category], mem.id)
                latest[category] = mem.id


def spoken_names() -> set[str]:
    """Every name the 20 calls hold (the capitalised words that are not openers)."""
    from tutor_app.speech.bias import names_in, value_names

    out: set[str] = set()
    for memories, _words in CALLS:
        for text, _category, _importance in memories:
            out.update(value_names(text.split(": ", 1)[1]) if ": " in text else names_in(text))
    return out
