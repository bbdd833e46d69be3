"""Files derived from an installed model once, at install: the ONNX export of the embedder.
Exporting needs torch (the `hf` extra, present where `make setup` and the package build
run); the app itself only reads the export."""
from __future__ import annotations

from pathlib import Path

from tutor_app.errors import TutorError

ONNX_EMBEDDER = "onnx/model.onnx"  # inside a sentence-transformers folder


class ExportUnavailable(TutorError):
    """torch or transformers is missing (the installed app has neither: it ships the export)."""


def embedder_to_onnx(folder: Path, dest: Path) -> None:
    """Export the BERT encoder of a sentence-transformers folder to ONNX (float32, so the
    vectors equal the PyTorch ones and calibrated thresholds stay valid). Pooling and
    normalisation stay in numpy (memory/embedder.py). onnxruntime then embeds ~2.4x
    faster than PyTorch on one core here, which is what batched inserts need."""
    try:
        import torch
        from transformers import AutoModel
    except ImportError as exc:
        name = folder.name.removeprefix(".").removesuffix(".partial")  # install works in .NAME.partial
        raise ExportUnavailable(
            f"exporting {name} to ONNX needs torch and transformers, which are not installed "
            f"({exc.name or exc}); memory cannot embed until then: pip install 'tutor-app[hf]', "
            f"then `tutor-app models install {name}`") from None
    try:
        base = AutoModel.from_pretrained(str(folder), attn_implementation="eager").eval()
    except Exception as exc:  # noqa: BLE001 - a bad model folder is one clear line
        raise TutorError(f"cannot export {folder.name}: {type(exc).__name__}: {exc}") from None

    class Encoder(torch.nn.Module):  # keyword call: newer transformers reorder positional args
        def __init__(self, model) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.model(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    names = ["input_ids", "attention_mask", "token_type_ids"]
    example = tuple(torch.ones((2, 8), dtype=torch.long) if n != "token_type_ids"
                    else torch.zeros((2, 8), dtype=torch.long) for n in names)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_suffix(".partial")
    try:
        import warnings

        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")  # tracer warnings about Python bools are expected
            torch.onnx.export(Encoder(base), example, str(tmp), input_names=names,
                              output_names=["last_hidden_state"], opset_version=17, dynamo=False,
                              dynamic_axes={n: {0: "batch", 1: "tokens"} for n in [*names, "last_hidden_state"]})
    except Exception as exc:  # noqa: BLE001
        tmp.unlink(missing_ok=True)
        raise TutorError(f"ONNX export of {folder.name} failed: {type(exc).__name__}: {exc}") from None
    tmp.replace(dest)
