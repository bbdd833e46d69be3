"""The per-turn memory policy of the tutor: the gate (what is worth remembering), the
follow-up decision, short-term memory, selective history, quoting memories for a prompt
(formatting) and the whole flow in one call (session). It may import tutor_app.memory
and tutor_app.core; tutor_app.memory never imports it.
"""
