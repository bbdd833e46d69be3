"""Two `memory import` runs of one file at the same time (issue #33): the duplicate check
is made under the writer lock against the table as it is then, so the file is added once.
Real processes, real LanceDB files, the real embedder."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.memory_fixtures import REPO
from tests.processes import at_once

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("round_", [1, 2])
def test_two_imports_of_one_file_at_once_add_it_once(data_dir, tmp_path, round_):
    lines = [{"text": f"Round {round_}: I visited city number {n} last summer.", "category": "interest"}
             for n in range(300)]
    path = tmp_path / "memories.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    outs = at_once("memory", "import", str(path))
    for out in outs:
        assert out.returncode == 0, out.stderr
    said = sorted(out.stdout.strip() for out in outs)
    assert said == ["imported 0 memories (300 already present, skipped)", "imported 300 memories"], said
    listed = subprocess.run([sys.executable, "-m", "tutor_app", "memory", "list", "--json"], cwd=REPO,
                            env=dict(os.environ), capture_output=True, text=True, timeout=300)
    texts = [json.loads(line)["text"] for line in listed.stdout.splitlines()]
    assert len(texts) == len(set(texts)) == 300
