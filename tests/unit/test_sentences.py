from tutor_app.core.sentences import SentenceSplitter, split_stream


def test_sentences_come_out_as_soon_as_they_end():
    s = SentenceSplitter()
    assert s.feed("Hello there, Minji! How was") == ["Hello there, Minji!"]
    assert s.feed(" your day? I hope") == ["How was your day?"]
    assert s.flush() == ["I hope"]


def test_abbreviations_decimals_and_short_bits():
    text = "Dr. Kim paid $3.50 for it. Oh. That is cheap, e.g. for Seoul. Right?"
    assert list(split_stream([c for c in text])) == [
        "Dr. Kim paid $3.50 for it.", "Oh. That is cheap, e.g. for Seoul.", "Right?"]
