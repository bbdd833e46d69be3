"""The learner profile: THE field schema (fields), merging a call's extraction into
memories (merge) and the grouped view of them (view). It imports memory.storage value
types, schema limits and ports (never the store itself) and retrieval's stemmer.
"""
