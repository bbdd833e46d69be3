"""Multi-label F1 and per-label threshold tuning (numpy only)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

THRESHOLD_GRID = np.round(np.arange(0.05, 0.951, 0.01), 2)


@dataclass(frozen=True)
class F1Report:
    macro_f1: float
    micro_f1: float
    per_label: tuple[float, ...]


def f1_report(y_true: np.ndarray, y_pred: np.ndarray) -> F1Report:
    """y_true, y_pred: (n, labels) 0/1 arrays."""
    t = y_true.astype(bool)
    p = y_pred.astype(bool)
    tp = (t & p).sum(0).astype(np.float64)
    fp = (~t & p).sum(0).astype(np.float64)
    fn = (t & ~p).sum(0).astype(np.float64)
    denom = 2 * tp + fp + fn
    per = np.where(denom > 0, 2 * tp / np.maximum(denom, 1e-12), 0.0)
    micro_d = 2 * tp.sum() + fp.sum() + fn.sum()
    micro = float(2 * tp.sum() / micro_d) if micro_d else 0.0
    return F1Report(float(per.mean()), micro, tuple(float(x) for x in per))


def tune_thresholds(y_true: np.ndarray, probs: np.ndarray, grid: np.ndarray = THRESHOLD_GRID) -> np.ndarray:
    """Per label, the grid threshold with the best F1 (ties -> the middle of the best run,
    which is less brittle than the first)."""
    out = np.empty(probs.shape[1], dtype=np.float32)
    t = y_true.astype(bool)
    for j in range(probs.shape[1]):
        pred = probs[:, j][None, :] >= grid[:, None]  # (grid, n)
        tp = (pred & t[:, j]).sum(1)
        fp = (pred & ~t[:, j]).sum(1)
        fn = (~pred & t[:, j]).sum(1)
        f1 = 2 * tp / np.maximum(2 * tp + fp + fn, 1)
        best = np.flatnonzero(f1 >= f1.max() - 1e-9)
        out[j] = grid[best[len(best) // 2]]
    return out


def predict(probs: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    return (probs >= thresholds[None, :]).astype(np.int8)


def cross_fitted_macro_f1(y_true: np.ndarray, probs: np.ndarray, folds: int = 2, seed: int = 0) -> float:
    """Honest-ish estimate: tune thresholds on one part of dev, score the other part.
    (Scoring dev with thresholds tuned on all of dev is optimistic.)"""
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(y_true))
    parts = np.array_split(order, folds)
    pred = np.zeros_like(y_true, dtype=np.int8)
    for k in range(folds):
        held = parts[k]
        fit = np.concatenate([parts[i] for i in range(folds) if i != k])
        th = tune_thresholds(y_true[fit], probs[fit])
        pred[held] = predict(probs[held], th)
    return f1_report(y_true, pred).macro_f1
