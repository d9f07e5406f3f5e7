"""course_gpt: a GPT-style causal decoder on the course-world corpus (textbook 12.7).

Pre-LN, GELU, sinusoidal positions, 4 layers × 4 heads, d_model 128, max_len 512. Texts from
`model.data.course_world.lm_texts` are wrapped as [BOS] words [EOS] and packed end to end into 512-token
windows, so every position up to 511 is trained. Loss: cross-entropy of the next token at every
position (the causal LM objective). Held out: fresh texts (another seed) never seen in training,
and texts built from the noun pairs held out of the corpus.
"""
import time

import numpy as np
import torch
import torch.nn.functional as F

from model import checkpoints
from model.data import course_world as corpus
from model.data.word_tokenizer import BOS, EOS, WordTokenizer
from model.engine.config import preset
from model.engine.transformer import Transformer
from model.training.loop import fit, seed_everything
from model.training.objectives import causal_lm_batch

NAME = "course_gpt"
SEQ_LEN = 512
RECIPE = dict(texts=60_000, seq_len=SEQ_LEN, batch=4, max_steps=1500, lr=3e-3, weight_decay=0.01,
              time_budget_s=400, threads=1, objective="causal LM, every position")


def stream(texts: list[str], tok: WordTokenizer) -> np.ndarray:
    """All texts as one id stream: [BOS] words [EOS] [BOS] words [EOS] ... (T,) int64."""
    ids = []
    for t in texts:
        ids += tok.encode(t, bos=True, eos=True).ids
    return np.array(ids, dtype=np.int64)


def windows(ids: np.ndarray, seq_len: int = SEQ_LEN) -> torch.Tensor:
    """Cut a stream into windows of seq_len + 1 tokens (inputs and shifted targets): (n, seq_len + 1)."""
    n = (len(ids) - 1) // seq_len
    return torch.stack([torch.from_numpy(ids[i * seq_len:i * seq_len + seq_len + 1]) for i in range(n)])


HELDOUT_FILE = checkpoints.ASSETS / f"{NAME}.heldout.txt"


def make_heldout(train_texts: list[str], n: int = 1200) -> list[str]:
    """Fresh texts (seed 1) minus every text of the training set, written next to the weights."""
    seen = set(train_texts)
    texts = [t for t in corpus.lm_texts(n * 3, seed=1) if t not in seen][:n]
    HELDOUT_FILE.write_text("\n".join(texts) + "\n")
    return texts


def heldout_texts(n: int = 1200) -> list[str]:
    """The held-out texts saved at training time (none of them is a training text)."""
    if not HELDOUT_FILE.is_file():
        raise checkpoints.CheckpointError(f"{HELDOUT_FILE} is missing. Rebuild it with "
                                          f"`{checkpoints.retrain_hint(NAME)}`.")
    return HELDOUT_FILE.read_text().splitlines()[:n]


def heldout_pair_texts(n_pairs: int = 100) -> list[str]:
    """Schema sentences built on noun pairs the corpus holds out of training."""
    return [s.text for s in corpus.eval_samples("heldout_pairs", n_pairs=n_pairs, seed=0)]


def loss_fn(model, batch):
    x, y = causal_lm_batch(batch)                                      # (B, T), (B, T)
    logits = model(x)                                                   # (B, T, V)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1)), y.numel()


def train(seed: int = 0):
    torch.set_num_threads(RECIPE["threads"])
    seed_everything(seed)
    tok = corpus.tokenizer()
    t0 = time.perf_counter()
    texts = corpus.lm_texts(RECIPE["texts"], seed=seed)
    make_heldout(texts)
    data = windows(stream(texts, tok))
    del texts
    print(f"{len(data)} windows of {SEQ_LEN} tokens built in {time.perf_counter() - t0:.0f}s", flush=True)
    config = preset("compact-long", len(tok), kind="decoder", norm="pre", activation="gelu")
    model = Transformer(config)
    gen = torch.Generator().manual_seed(seed)

    def next_batch(step):
        return data[torch.randint(len(data), (RECIPE["batch"],), generator=gen)]

    history = fit(model, next_batch, loss_fn, RECIPE["max_steps"], lr=RECIPE["lr"],
                  weight_decay=RECIPE["weight_decay"], label=NAME, time_budget_s=RECIPE["time_budget_s"])
    metrics = measure(model, tok)
    meta = {"arch": "model.engine.transformer:Transformer", "config": config.to_dict(), "tokenizer": tok.to_dict(),
            "modality": "text", "recipe": {**RECIPE, "seed": seed, "steps_done": len(history),
                                           "final_loss": round(history[-1], 4)},
            "metrics": metrics}
    checkpoints.save(NAME, model, meta)
    print(metrics)


@torch.inference_mode()
def next_token_scores(model, texts: list[str], tok: WordTokenizer, seq_len: int = SEQ_LEN) -> dict:
    """Accuracy of the argmax next token and perplexity exp(mean NLL) over packed windows.
    Targets that are [BOS] (always right after [EOS]) are left out as trivially predictable."""
    data = windows(stream(texts, tok), seq_len)
    correct = nll = count = 0
    for chunk in data.split(8):
        x, y = causal_lm_batch(chunk)
        logp = torch.log_softmax(model(x).double(), dim=-1)             # (B, T, V)
        keep = y != BOS
        nll += float(-logp.gather(-1, y[..., None]).squeeze(-1)[keep].sum())
        correct += int((logp.argmax(-1) == y)[keep].sum())
        count += int(keep.sum())
    return {"acc": correct / count, "ppl": float(np.exp(nll / count)), "n": count}


def measure(model, tok: WordTokenizer, n_texts: int = 1200) -> dict:
    model.eval()
    held = next_token_scores(model, heldout_texts(n_texts), tok)
    pairs = next_token_scores(model, heldout_pair_texts(), tok, seq_len=128)
    eos_rate = _eos_rate(model, tok)
    return {"next_token_acc_heldout": round(held["acc"], 4), "perplexity_heldout": round(held["ppl"], 3),
            "heldout_tokens": held["n"],
            "next_token_acc_heldout_pairs": round(pairs["acc"], 4),
            "perplexity_heldout_pairs": round(pairs["ppl"], 3), "greedy_ends_with_eos": eos_rate}


@torch.inference_mode()
def _eos_rate(model, tok: WordTokenizer) -> float:
    """Share of 20 greedy continuations of held-out openings that end a text with [EOS] within 48 tokens."""
    from model.tasks.generation import generate
    texts = heldout_texts(20)
    ends = 0
    for t in texts:
        prompt = tok.encode(" ".join(t.split()[:3]), bos=True).ids
        ends += generate(model, prompt, max_new=48, eos_id=EOS).stopped_at_eos
    return round(ends / len(texts), 3)


def evaluate() -> dict:
    model, meta = checkpoints.load(NAME)
    return measure(model, WordTokenizer.from_dict(meta["tokenizer"]))
