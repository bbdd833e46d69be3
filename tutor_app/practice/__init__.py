"""The learning loop: the learner's own mistakes and new words, kept per profile
(store.py), brought back by spaced repetition (schedule.py, FSRS) as a quiet plan in the
tutor's prompt (plan.py), and judged from what the learner says next (outcome.py)."""
