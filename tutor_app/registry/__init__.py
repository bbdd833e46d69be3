"""Model registry: the manifest in models/models.toml, install, verify, resolve."""
