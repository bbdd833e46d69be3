"""One definition of the audio constants (core/types.py): the sample rate and the VAD frame
are never written out again in the live call or the speech code."""
from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

import tutor_app
from tutor_app.core.types import FRAME_MS, FRAME_SAMPLES, SAMPLE_RATE

ROOT = Path(tutor_app.__file__).parent
NAMES = {"SAMPLE_RATE", "FRAME_SAMPLES", "FRAME_MS"}


def _modules(*packages: str) -> list[Path]:
    return sorted(p for package in packages for p in (ROOT / package).rglob("*.py"))


def test_the_constants():
    assert (SAMPLE_RATE, FRAME_SAMPLES, FRAME_MS) == (16000, 512, 32.0)


def test_defined_once():
    defined = []
    for path in _modules("."):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                node, ast.AnnAssign) else []
            defined += [f"{path.relative_to(ROOT)}: {t.id}" for t in targets
                        if isinstance(t, ast.Name) and t.id in NAMES]
    assert sorted(defined) == sorted(f"core/types.py: {name}" for name in NAMES)


def test_no_sample_rate_written_out_in_the_call_or_speech_code():
    found = []
    for path in _modules("call", "speech"):
        tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
        found += [f"{path.relative_to(ROOT)}:{t.start[0]}" for t in tokens
                  if t.type == tokenize.NUMBER and t.string.replace("_", "") == "16000"]
    assert found == []
