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

pytestmark = pytest.mark.slow


def _import_twice_at_once(path) -> list[subprocess.CompletedProcess]:
    procs = [subprocess.Popen([sys.executable, "-m", "tutor_app", "memory", "import", str(path)], cwd=REPO,
                              env=dict(os.environ), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    outs = []
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=600)
        outs.append(subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr))
    return outs


@pytest.mark.parametrize("round_", [1, 2])
def test_two_imports_of_one_file_at_once_add_it_once(data_dir, tmp_path, round_):
    lines = [{"text": f"Round {round_}: I visited city number {n} last summer.", "category": "interest"}
             for n in range(300)]
    path = tmp_path / "memories.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    outs = _import_twice_at_once(path)
    for out in outs:
        assert out.returncode == 0, out.stderr
    said = sorted(out.stdout.strip() for out in outs)
    assert said == ["imported 0 memories (300 already present, skipped)", "imported 300 memories"], said
    listed = subprocess.run([sys.executable, "-m", "tutor_app", "memory", "list", "--json"], cwd=REPO,
                            env=dict(os.environ), capture_output=True, text=True, timeout=300)
    texts = [json.loads(line)["text"] for line in listed.stdout.splitlines()]
    assert len(texts) == len(set(texts)) == 300
