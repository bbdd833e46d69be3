"""Pure-Python core: value types, protocols and small helpers. No Qt, no heavy imports."""
