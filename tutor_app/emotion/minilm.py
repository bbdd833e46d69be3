"""A numpy forward pass of the fine-tuned MiniLM (BERT, post-LayerNorm) + linear head.

Why numpy and not torch/onnxruntime: importing torch alone takes longer than the 2 s load
budget, and for 10-60 token inputs a 6-layer, 384-wide encoder is a handful of small
matrix products that numpy's BLAS runs in a few milliseconds. Weight names follow the
Hugging Face BertModel state dict (without the `bert.` prefix) plus `head.weight/bias`.
"""
from __future__ import annotations

import numpy as np

LN_EPS = 1e-12
HEADS = 12


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7): exact-GELU accuracy without scipy.
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x * np.float32(0.7071067811865476)))


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    xc = x - mu
    var = (xc * xc).mean(-1, keepdims=True)
    return xc / np.sqrt(var + LN_EPS) * w + b


class MiniLMClassifier:
    """Inference only. `weights`: float32 arrays by state-dict name; `word_embeddings` the
    frozen (vocab, hidden) matrix from the base model."""

    def __init__(self, weights: dict[str, np.ndarray], word_embeddings: np.ndarray) -> None:
        f = lambda k: np.ascontiguousarray(weights[k], dtype=np.float32)  # noqa: E731
        self.word = word_embeddings
        self.pos = f("embeddings.position_embeddings.weight")
        self.type0 = f("embeddings.token_type_embeddings.weight")[0]
        self.emb_ln = (f("embeddings.LayerNorm.weight"), f("embeddings.LayerNorm.bias"))
        self.layers = []
        i = 0
        while f"encoder.layer.{i}.attention.self.query.weight" in weights:
            p = f"encoder.layer.{i}."
            # Fused, pre-transposed QKV: one GEMM instead of three.
            qkv_w = np.concatenate([f(p + f"attention.self.{n}.weight") for n in ("query", "key", "value")]).T
            qkv_b = np.concatenate([f(p + f"attention.self.{n}.bias") for n in ("query", "key", "value")])
            self.layers.append((
                np.ascontiguousarray(qkv_w), qkv_b,
                np.ascontiguousarray(f(p + "attention.output.dense.weight").T), f(p + "attention.output.dense.bias"),
                f(p + "attention.output.LayerNorm.weight"), f(p + "attention.output.LayerNorm.bias"),
                np.ascontiguousarray(f(p + "intermediate.dense.weight").T), f(p + "intermediate.dense.bias"),
                np.ascontiguousarray(f(p + "output.dense.weight").T), f(p + "output.dense.bias"),
                f(p + "output.LayerNorm.weight"), f(p + "output.LayerNorm.bias"),
            ))
            i += 1
        if not self.layers:
            raise KeyError("no encoder layers in the weights")
        self.head_w = np.ascontiguousarray(f("head.weight").T)
        self.head_b = f("head.bias")
        self.hidden = self.pos.shape[1]
        self.max_positions = self.pos.shape[0]

    @property
    def num_labels(self) -> int:
        return self.head_b.shape[0]

    def logits(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """ids, mask: (batch, tokens) int arrays, mask 1 for real tokens. -> (batch, labels)."""
        bsz, t = ids.shape
        d = self.hidden // HEADS
        x = self.word[ids] + self.pos[:t] + self.type0
        x = _layer_norm(x.astype(np.float32, copy=False), *self.emb_ln)
        # Additive key mask; skipped when nothing is padded (always true at batch 1).
        bias = None if mask.all() else ((1.0 - mask[:, None, None, :].astype(np.float32)) * -1e9)
        scale = np.float32(1.0 / np.sqrt(d))
        for qkv_w, qkv_b, o_w, o_b, ln1_w, ln1_b, i_w, i_b, f_w, f_b, ln2_w, ln2_b in self.layers:
            qkv = (x @ qkv_w + qkv_b).reshape(bsz, t, 3, HEADS, d).transpose(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]  # (b, heads, t, d)
            att = (q @ k.transpose(0, 1, 3, 2)) * scale
            if bias is not None:
                att = att + bias
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            ctx = (att @ v).transpose(0, 2, 1, 3).reshape(bsz, t, self.hidden)
            x = _layer_norm(x + (ctx @ o_w + o_b), ln1_w, ln1_b)
            x = _layer_norm(x + (_gelu(x @ i_w + i_b) @ f_w + f_b), ln2_w, ln2_b)
        m = mask[:, :, None].astype(np.float32)
        pooled = (x * m).sum(1) / np.maximum(m.sum(1), 1.0)  # mean pooling, as in training
        return pooled @ self.head_w + self.head_b


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -40.0, 40.0)))
