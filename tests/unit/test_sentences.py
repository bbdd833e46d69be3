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


def test_a_sentence_ending_on_the_deltas_edge_comes_out_without_waiting_for_the_next():
    s = SentenceSplitter()
    assert s.feed("That sounds really") == []
    assert s.feed(" interesting.") == ["That sounds really interesting."]  # not at " Could"
    assert s.feed(" Could you") == []
    assert s.feed(" tell me more?") == ["Could you tell me more?"]
    assert s.flush() == []


def test_what_may_go_on_after_a_full_stop_waits_for_the_next_delta():
    s = SentenceSplitter()
    assert s.feed("The ticket costs 3.") == []  # maybe 3.50
    assert s.feed("50 dollars, said Mr.") == []  # an abbreviation
    assert s.feed(" Kim, e.") == []  # a single letter: maybe "e.g."
    assert s.feed("g. in Seoul.") == ["The ticket costs 3.50 dollars, said Mr. Kim, e.g. in Seoul."]
    assert s.feed(" Oh.") == []  # too short alone
    assert s.feed(" I see it now!") == ["Oh. I see it now!"]


def test_a_closing_quote_in_the_same_delta_stays_with_its_sentence():
    s = SentenceSplitter()
    assert s.feed('She said "see you soon."') == ['She said "see you soon."']


def test_a_first_sentence_of_its_own_minimum_comes_out_alone_and_later_ones_keep_theirs():
    s = SentenceSplitter(first_min_chars=1)
    assert s.feed("Okay.") == ["Okay."]  # at once: the rest is made while it plays
    assert s.feed(" Tell me more. Oh. Why") == ["Tell me more."]
    assert s.feed(" not?") == ["Oh. Why not?"]  # later ones: short bits still join the next
