"""Storage of the memory package: the LanceDB database (db, schema), the profile-scoped
store (store, records), its in-memory search index, value types (models), real deletion
(purge), export/import (transfer) and cleanup (maintenance); `ports` says, as Protocols,
what retrieval, profile and purge need of the store. It may import memory.retrieval
(the index uses its text cues, the store runs recall) and memory.profile (the view),
never tutor_app.tutor, the UI or Qt.
"""
