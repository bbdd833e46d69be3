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


def test_a_long_first_sentence_goes_out_at_its_first_clause_break_and_only_the_first():
    s = SentenceSplitter(first_min_chars=1, first_clause_words=6)
    assert s.feed("Oh, that") == []  # "Oh," is one word: too short to say alone
    assert s.feed(" sounds like a great trip") == []
    assert s.feed(",") == ["Oh, that sounds like a great trip,"]  # at once: a letter before it
    assert s.feed(" and I am glad you went, because the mountains") == []  # offered once
    assert s.feed(" are lovely. Tell me, what did you eat there, and with whom?") == [
        "and I am glad you went, because the mountains are lovely.", "Tell me, what did you eat there, and with whom?"]
    assert s.flush() == []


def test_no_clause_break_inside_numbers_times_or_after_a_short_first_sentence():
    s = SentenceSplitter(first_min_chars=1, first_clause_words=2)
    assert s.feed("It costs 1,000 won at 3:30 in the") == []
    assert s.feed(" evening,") == ["It costs 1,000 won at 3:30 in the evening,"]
    assert s.feed(" I think.") == []  # the rest keeps the later sentences' minimum
    assert s.flush() == ["I think."]
    s = SentenceSplitter(first_min_chars=1, first_clause_words=2)
    assert s.feed("We met in the evening, I think.") == ["We met in the evening, I think."]  # whole: said whole
    s = SentenceSplitter(first_min_chars=1, first_clause_words=2)
    assert s.feed("Okay. Then we go home, and we rest") == ["Okay."]  # the first was a sentence
    assert s.flush() == ["Then we go home, and we rest"]


def test_a_declined_clause_stays_in_its_sentence():
    offered: list[str] = []

    def decline(clause: str) -> bool:
        offered.append(clause)
        return False

    s = SentenceSplitter(first_min_chars=1, first_clause_words=3, clause_ok=decline)
    assert s.feed("I went to Busan last weekend, and then") == []
    assert s.feed(" I ate fish, a lot of it. Good.") == ["I went to Busan last weekend, and then I ate fish, a lot of it."]
    assert offered == ["I went to Busan last weekend,"]  # asked once
    assert s.flush() == ["Good."]


def test_is_clause():
    from tutor_app.core.sentences import is_clause

    assert is_clause("That sounds fun,") and is_clause("Here is a tip:") and not is_clause("Great.")
