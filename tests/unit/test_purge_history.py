"""A deletion that cannot read the table's history erases (to be sure) rather than answer
"nothing to erase": on a privacy path, "could not check" never means "not there"."""
from __future__ import annotations

from types import SimpleNamespace

from tutor_app.memory.storage import purge


class _Table:
    def __init__(self, versions: list[int], bad: set[int], holding: set[int]) -> None:
        self.versions, self.bad, self.holding, self.at = versions, bad, holding, None

    def list_versions(self) -> list[dict[str, int]]:
        return [{"version": v} for v in self.versions]

    def checkout(self, version: int) -> None:
        if version in self.bad:
            raise OSError("a version whose files cannot be read")
        self.at = version

    def count_rows(self, clause: str) -> int:
        return int(self.at in self.holding)


def _store(open_table) -> SimpleNamespace:
    return SimpleNamespace(_db=SimpleNamespace(conn=SimpleNamespace(open_table=open_table)), _where="profile = 'p'")


def test_an_old_version_that_holds_the_id_is_found():
    table = _Table([1, 2, 3], bad=set(), holding={2})
    assert purge.in_old_versions(_store(lambda name: table), "m1")


def test_no_old_version_holds_the_id():
    table = _Table([1, 2, 3], bad=set(), holding=set())
    assert not purge.in_old_versions(_store(lambda name: table), "m1")


def test_an_unreadable_history_means_erase():
    def broken(name: str) -> None:
        raise OSError("manifest damaged")

    assert purge.in_old_versions(_store(broken), "m1")


def test_an_unreadable_old_version_means_erase():
    table = _Table([1, 2, 3], bad={2}, holding=set())
    assert purge.in_old_versions(_store(lambda name: table), "m1")
