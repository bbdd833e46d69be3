"""Long-term memory (LanceDB), short-term session memory, recall, merge, deletion."""
