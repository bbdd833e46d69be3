"""The tutor: prompts, turn pipeline, call lifecycle, call report."""
