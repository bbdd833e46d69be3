from tutor_app.memory.retrieval.rewrite import needs_context
from tutor_app.tutor.turn_memory.followup import classify, classify_with, is_reset


def test_explicit_reset_wins():
    for q in ("New topic: what's the weather like in London these days?", "Let's talk about something else",
              "can we change the subject", "다른 얘기 하자"):
        assert is_reset(q)
        d = classify(q, "What coffee do I like?", similarity=0.99)
        assert d.kind == "reset" and not d.keep_context


def test_short_or_followup_worded_questions_keep_context():
    assert classify("Why?", "Tell me about my interview").kind == "followup"
    assert classify("And what about the second question they asked me?", "Tell me about my interview").reason == "followup_phrase"


def test_similarity_decides_otherwise():
    prev = "What should I say about teamwork in my nursing interview?"
    q = "Could you give me a better example about handling stress at the hospital?"
    assert classify(q, prev, threshold=0.5, similarity=0.7).kind == "followup"
    assert classify(q, prev, threshold=0.5, similarity=0.2).kind == "new"


def test_first_question():
    assert classify("Tell me a story about dragons please, a long one", None).kind == "first"


def test_classify_with_embedder_failure_is_new_topic():
    class Broken:
        def embed_one(self, t):
            raise RuntimeError("no model")

    prev = "What should I say about teamwork in my nursing interview?"
    q = "Could you give me a better example about handling stress at the hospital?"
    assert classify_with(Broken(), q, prev).kind == "new"


def test_needs_context():
    assert needs_context("what about her?")
    assert not needs_context("What is my sister's name?")


def test_vectors_and_string_comparison():
    import numpy as np

    prev = "What should I say about teamwork in my nursing interview?"
    q = "Could you give me a better example about handling stress at the hospital?"
    a = np.array([1.0, 0.0], dtype=np.float32)
    b = np.array([0.6, 0.8], dtype=np.float32)
    d = classify(q, prev, b, a, 0.5)
    assert d == "followup" and d.similarity == __import__("pytest").approx(0.6)
    assert classify(q, prev, np.array([0.0, 1.0]), a, 0.5) == "new"
