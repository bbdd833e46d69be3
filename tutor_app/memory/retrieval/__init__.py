"""Retrieval for a turn: hybrid recall and search (recall), BM25 term statistics
(lexical), fact-slot cues (slots), time references (timeref) and follow-up query
rewriting (rewrite). It works on a profile's index and an embedder reached through
memory.storage.ports, and imports only value types and schema helpers of storage
(never the store itself) and the field schema of memory.profile.
"""
