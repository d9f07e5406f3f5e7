"""Shared pieces of the image recipes: a classifier training loop over in-memory arrays, accuracy,
and the share of <cls> attention that falls on given patches."""
import numpy as np
import torch
import torch.nn.functional as F

from model import checkpoints
from model.engine.capture import capturing
from model.training.loop import fit, seed_everything


def normalise(images: np.ndarray, mean, std) -> np.ndarray:
    """(B, C, H, W) in [0, 1] -> per-channel (x - mean) / std, float32."""
    m = np.asarray(mean, dtype=np.float32)[:, None, None]
    s = np.asarray(std, dtype=np.float32)[:, None, None]
    return ((images - m) / s).astype(np.float32)


def train_classifier(model, x: np.ndarray, y: np.ndarray, *, epochs: int, batch: int, lr: float,
                     weight_decay: float, seed: int, label: str, augment=None) -> list[float]:
    """x: (B, C, H, W) normalised float32; y: (B,) int64. Shuffled mini-batches, `epochs` passes."""
    seed_everything(seed)
    rng = np.random.default_rng(seed)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    per_epoch = int(np.ceil(len(x) / batch))
    order = []

    def next_batch(step):
        if not order:
            order.extend(np.array_split(rng.permutation(len(x)), per_epoch))
        idx = torch.from_numpy(order.pop())
        xb = xt[idx]
        return (augment(xb, rng) if augment else xb), yt[idx]

    def loss_fn(m, b):
        return F.cross_entropy(m(b[0]), b[1]), len(b[1])

    return fit(model, next_batch, loss_fn, steps=epochs * per_epoch, lr=lr, weight_decay=weight_decay,
               label=label)


def train_checkpointed(name: str, model, x: np.ndarray, y: np.ndarray, *, epochs: int, batch: int, lr: float,
                       weight_decay: float, seed: int, augment=None) -> list[float]:
    """train_classifier with a checkpoint a stopped run resumes from (model.training.checkpointed): every
    step's batch is drawn from the seed, the epoch and the step, so a resumed run goes on as it would have."""
    from model.training import checkpointed
    seed_everything(seed)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    per_epoch = int(np.ceil(len(x) / batch))

    def next_batch(step):
        epoch, k = divmod(step, per_epoch)
        order = np.array_split(np.random.default_rng([seed, epoch]).permutation(len(x)), per_epoch)[k]
        idx = torch.from_numpy(order)
        xb = xt[idx]
        return (augment(xb, np.random.default_rng([seed, epoch, k])) if augment else xb), yt[idx]

    def loss_fn(m, b):
        return F.cross_entropy(m(b[0]), b[1]), len(b[1])

    return checkpointed.fit(name, model, next_batch, loss_fn, epochs * per_epoch, lr, weight_decay)


@torch.inference_mode()
def predict(model, x: np.ndarray, batch: int = 512) -> np.ndarray:
    """(B, C, H, W) -> predicted class (B,)."""
    model.eval()
    return np.concatenate([model(torch.from_numpy(x[i:i + batch])).argmax(-1).numpy()
                           for i in range(0, len(x), batch)])


def _weights_by_batch(model, x: np.ndarray, batch: int):
    """Every layer's attention, `batch` images at a time: (b, L, H, N+1, N+1) tensors in order (call it under
    torch.inference_mode)."""
    model.eval()
    for i in range(0, len(x), batch):
        with capturing():
            caps = model.encode(torch.from_numpy(x[i:i + batch])).intermediates
        yield torch.stack([c.weights for c in caps], dim=1)


@torch.inference_mode()
def cls_attention(model, x: np.ndarray, batch: int = 256) -> np.ndarray:
    """<cls> row of every layer, <cls> itself left out and the rest renormalised: (B, L, H, N)."""
    rows = (w[:, :, :, 0, 1:] for w in _weights_by_batch(model, x, batch))               # (b, L, H, N)
    return np.concatenate([(w / w.sum(-1, keepdim=True).clamp_min(1e-12)).numpy() for w in rows])


def share_on(cls_rows: np.ndarray, relevant: np.ndarray) -> np.ndarray:
    """cls_rows (B, L, H, N), relevant (B, N) bool -> (B, L, H) attention share on relevant patches."""
    return (cls_rows * relevant[:, None, None, :]).sum(-1)


def share_figures(prefix: str, share: np.ndarray, relevant: np.ndarray, rolled: np.ndarray) -> dict:
    """Flat figures from share (B, L, H) and rollout share (B,): the mean over every layer and head,
    each layer's head mean, the best single (layer, head), the uniform baseline, the rollout."""
    per_layer = share.mean(axis=(0, 2))
    out = {prefix: round(float(share.mean()), 4), f"{prefix}_uniform": round(float(relevant.mean()), 4)}
    out.update({f"{prefix}_layer{i}": round(float(v), 4) for i, v in enumerate(per_layer)})
    out[f"{prefix}_best_head"] = round(float(share.mean(0).max()), 4)
    out[f"{prefix}_rollout"] = round(float(rolled.mean()), 4)
    return out


@torch.inference_mode()
def cls_rollout(model, x: np.ndarray, batch: int = 256) -> np.ndarray:
    """Rollout of <cls> onto the patches after the last layer, <cls> left out and renormalised: (B, N)."""
    from model.analysis.attention_views import rollout
    out = []
    for w in _weights_by_batch(model, x, batch):
        r = np.stack([rollout(one)[-1, 0, 1:] for one in w.numpy()])              # (b, N)
        out.append(r / r.sum(-1, keepdims=True))
    return np.concatenate(out)


def save(name: str, model, recipe: dict, metrics: dict, preprocess: dict, arch: str = "model.architectures.vit:ViT"):
    meta = {"arch": arch, "config": model.to_dict(), "tokenizer": None, "modality": "image",
            "preprocess": preprocess, "recipe": recipe, "metrics": metrics}
    return checkpoints.save(name, model, meta)


def write_samples(folder=None, per_class: int = 1):
    """Sample images for the page, from data no model trained on: digits from the held-out split
    (dark ink on white, 96 × 96, as a scan would be) and scenes from seed 3 (192 × 192).
    Names carry the true answer: digit_<label>_<k>.png, scene_<shape>_<k>.png.
    `python -m model.training.recipes._images` rewrites them."""
    from PIL import Image

    from model.data import digits, scenes
    folder = folder or checkpoints.ASSETS / "samples"
    folder.mkdir(parents=True, exist_ok=True)
    _, _, x_te, y_te = digits.split()
    for label in range(10):
        for k, i in enumerate(np.flatnonzero(y_te == label)[:per_class]):
            a = ((1 - x_te[i, 0]) * 255).round().astype(np.uint8)
            Image.fromarray(a).resize((96, 96), Image.Resampling.NEAREST).save(folder / f"digit_{label}_{k}.png")
    x, y, _ = scenes.make_dataset(12, seed=3)
    counts = {}
    for img, label in zip(x, y):
        shape = scenes.SHAPES[label]
        k = counts[shape] = counts.get(shape, -1) + 1
        if k < 2 * per_class:
            a = (img.transpose(1, 2, 0) * 255).round().astype(np.uint8)
            Image.fromarray(a).resize((192, 192), Image.Resampling.NEAREST).save(folder / f"scene_{shape}_{k}.png")


if __name__ == "__main__":
    write_samples()
