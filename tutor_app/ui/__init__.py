"""Qt desktop UI: the only package that imports Qt."""
