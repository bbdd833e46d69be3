"""Long-term memory (LanceDB): storage/, retrieval/, profile/ and the embedder. The
per-turn policy on top of it lives in tutor_app.tutor.turn_memory."""
