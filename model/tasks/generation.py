"""Autoregressive generation from a causal decoder (GPT, Radford et al. 2018; textbook 12.7.3).

Pr(t_1..t_N) = Π Pr(t_n | t_<n): feed the prompt once, then one token at a time, reusing every
layer's keys and values from a cache (the causal mask makes earlier positions independent of later
ones). Attention is captured at every step, so a page can show the causal pattern growing row by
row. Strategies: greedy, seeded top-k sampling with temperature, and beam search with its tree.
"""
import contextlib
from dataclasses import dataclass, field

import numpy as np
import torch

from i18n import _, ngettext
from model.engine.capture import capturing
from model.engine.errors import InputError

MAX_NEW_TOKENS = 64      # the longest continuation a page may ask for
TOP_SHOWN = 10           # alternatives kept per step for display


class GenerationError(InputError):
    """A request the model cannot serve (empty prompt, too long, bad settings); readable message."""


@dataclass
class Generation:
    """One continuation. ids: prompt + generated token ids (N,); n_prompt: length of the prompt;
    weights: (L, H, N, N) attention, row i computed at the step that fed token i (exactly 0 above
    the diagonal); logits: (N, V) output at every fed position (row i predicts token i + 1);
    chosen_prob: (S,) probability of each generated token under the (temperature) distribution;
    top_ids, top_probs: (S, TOP_SHOWN) the most likely candidates at each step."""
    ids: list[int]
    n_prompt: int
    weights: np.ndarray
    logits: np.ndarray
    chosen_prob: np.ndarray
    top_ids: np.ndarray
    top_probs: np.ndarray
    strategy: str = "greedy"
    stopped_at_eos: bool = False

    @property
    def new_ids(self) -> list[int]:
        return self.ids[self.n_prompt:]


@dataclass
class BeamNode:
    """One node of the beam tree. parent: index into BeamSearch.nodes (-1 for the prompt);
    status: "prompt" | "kept" | "pruned" | "finished"; score: summed log-probability."""
    token_id: int
    parent: int
    step: int
    logprob: float
    score: float
    status: str


@dataclass
class BeamSearch:
    """nodes: the whole tree (kept, pruned and finished candidates); beams: the final hypotheses,
    best first, each {"node", "ids", "score", "norm_score", "finished"}."""
    prompt_ids: list[int]
    nodes: list[BeamNode]
    beams: list[dict] = field(default_factory=list)
    width: int = 1
    length_penalty: float = 0.0


def _device(model):
    return next(model.parameters()).device


def check_request(model, prompt_ids, max_new: int):
    """Refuse empty prompts and lengths past the model's positions, with a readable message."""
    if not len(prompt_ids):
        raise GenerationError(_("The prompt is empty: type at least one word."))
    if not 1 <= max_new <= MAX_NEW_TOKENS:
        raise GenerationError(_("Generate between 1 and {most} tokens (asked for {asked}).").format(
            most=MAX_NEW_TOKENS, asked=max_new))
    limit = model.config.max_len
    if len(prompt_ids) + max_new > limit:
        raise GenerationError(ngettext(
            "The prompt has {n} tokens; with {new} new token that is {total}, past this model's {limit} positions. "
            "Shorten the prompt or generate fewer tokens.",
            "The prompt has {n} tokens; with {new} new tokens that is {total}, past this model's {limit} positions. "
            "Shorten the prompt or generate fewer tokens.", max_new).format(
            n=len(prompt_ids), new=max_new, total=len(prompt_ids) + max_new, limit=limit))


def new_caches(model) -> list[dict]:
    return [{} for _ in range(len(model.encoder.layers))]


@torch.inference_mode()
def feed(model, ids: torch.Tensor, caches: list[dict], offset: int, capture: bool = True):
    """Run new tokens ids (B, T) at positions offset.. against the cache (which grows by T).
    Returns logits (B, T, V) and weights (L, B, H, T, offset + T) or None."""
    with capturing() if capture else contextlib.nullcontext():
        out = model.encode(ids, kv_caches=caches, offset=offset)
    weights = torch.stack([i.weights for i in out.intermediates]) if capture else None
    return model.lm_head(out.x), weights


def distribution(logits: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
    """softmax(logits / T) over the last axis. T → 0 sharpens towards greedy, T > 1 flattens."""
    if temperature <= 0:
        raise GenerationError(_("Temperature must be above 0 (got {t}).").format(t=temperature))
    return torch.softmax(logits.float() / temperature, dim=-1)


@torch.inference_mode()
def next_token_probs(model, prompt_ids, temperature: float = 1.0) -> np.ndarray:
    """The distribution over the next token after prompt_ids: (V,) float64 summing to 1."""
    check_request(model, prompt_ids, 1)
    ids = torch.tensor([list(prompt_ids)], device=_device(model))
    logits = model(ids)[0, -1]
    return distribution(logits, temperature).double().cpu().numpy()


def choose(probs: torch.Tensor, strategy: str, k: int, generator: torch.Generator | None) -> int:
    """Pick one token id from probs (V,): "greedy" = argmax; "top_k" = sample among the k most
    likely, renormalised (k = 1 is greedy)."""
    if strategy == "greedy":
        return int(probs.argmax())
    if strategy != "top_k":
        raise GenerationError(_("Unknown strategy {name}; choose greedy or top_k.").format(name=repr(strategy)))
    if k < 1:
        raise GenerationError(_("k must be at least 1 (got {k}).").format(k=k))
    top_p, top_i = probs.topk(min(k, probs.numel()))
    pick = torch.multinomial(top_p / top_p.sum(), 1, generator=generator)
    return int(top_i[pick])


@torch.inference_mode()
def generate(model, prompt_ids, max_new: int = 20, strategy: str = "greedy", k: int = 5,
             temperature: float = 1.0, seed: int = 0, eos_id: int | None = None) -> Generation:
    """Continue prompt_ids token by token with a key/value cache, capturing attention each step.

    Greedy ignores temperature; top-k samples with torch.Generator(seed), so a seed reproduces
    the same text. Stops after max_new tokens or when eos_id is generated.
    """
    check_request(model, prompt_ids, max_new)
    dev = _device(model)
    gen = torch.Generator(device="cpu").manual_seed(seed)
    caches = new_caches(model)
    ids = list(prompt_ids)
    logits, w = feed(model, torch.tensor([ids], device=dev), caches, 0)
    rows_logits, rows_w = [logits[0]], [w[:, 0]]                       # (T, V), (L, H, T, T)
    chosen, tops_i, tops_p, stopped = [], [], [], False
    for _step in range(max_new):
        probs = distribution(logits[0, -1], temperature).cpu()
        tok = choose(probs, strategy, k, gen)
        top_p, top_i = probs.topk(min(TOP_SHOWN, probs.numel()))
        chosen.append(float(probs[tok]))
        tops_i.append(top_i.numpy())
        tops_p.append(top_p.numpy())
        offset = len(ids)
        ids.append(tok)
        logits, w = feed(model, torch.tensor([[tok]], device=dev), caches, offset)
        rows_logits.append(logits[0])
        rows_w.append(w[:, 0])                                          # (L, H, 1, offset + 1)
        if eos_id is not None and tok == eos_id:
            stopped = True
            break
    return Generation(ids=ids, n_prompt=len(prompt_ids), weights=assemble(rows_w, len(ids)),
                      logits=torch.cat(rows_logits).float().cpu().numpy(),
                      chosen_prob=np.array(chosen), top_ids=np.stack(tops_i), top_probs=np.stack(tops_p),
                      strategy=strategy, stopped_at_eos=stopped)


def assemble(rows: list[torch.Tensor], n: int) -> np.ndarray:
    """Per-step weights (L, H, t, ≤n) -> one (L, H, n, n) float32 array; unseen keys stay 0."""
    L, H = rows[0].shape[:2]
    out = np.zeros((L, H, n, n), dtype=np.float32)
    r = 0
    for w in rows:
        t, keys = w.shape[2], w.shape[3]
        out[:, :, r:r + t, :keys] = w.float().cpu().numpy()
        r += t
    return out


@torch.inference_mode()
def full_recompute(model, ids) -> tuple[np.ndarray, np.ndarray]:
    """The same sequence in one causal pass (no cache): logits (N, V), weights (L, H, N, N)."""
    x = torch.tensor([list(ids)], device=_device(model))
    with capturing():
        out = model.encode(x)
    weights = torch.stack([i.weights[0] for i in out.intermediates])
    return model.lm_head(out.x)[0].float().cpu().numpy(), weights.float().cpu().numpy()


def _norm(score: float, n_new: int, alpha: float) -> float:
    """Length-normalised score: Σ log p / n^α (α = 0 keeps the plain sum)."""
    return score / (max(n_new, 1) ** alpha)


@torch.inference_mode()
def beam_search(model, prompt_ids, width: int = 3, max_new: int = 10, eos_id: int | None = None,
                length_penalty: float = 0.0) -> BeamSearch:
    """Keep the `width` most likely continuations at every step (scores: summed log-probs).

    Each live beam proposes its `width` best next tokens; of all proposals the best `width`
    survive ("kept"), the rest are "pruned"; a proposal ending in eos_id is "finished" and set
    aside. The caches of all live beams run as one batch and are reordered by parent.
    Returns the whole tree and the final beams ranked by score / n_new^length_penalty.
    """
    check_request(model, prompt_ids, max_new)
    if not 1 <= width <= 16:
        raise GenerationError(_("Beam width must be between 1 and 16 (got {width}).").format(width=width))
    dev = _device(model)
    caches = new_caches(model)
    logits, _weights = feed(model, torch.tensor([list(prompt_ids)], device=dev), caches, 0, capture=False)
    nodes = [BeamNode(token_id=-1, parent=-1, step=0, logprob=0.0, score=0.0, status="prompt")]
    live = [0]                                     # node index of each live beam (batch row)
    seqs = [list(prompt_ids)]
    finished = []
    last = logits[:, -1]                           # (B, V)
    for step in range(1, max_new + 1):
        logp = torch.log_softmax(last.float(), dim=-1).cpu()           # (B, V)
        proposals = []
        for b, node in enumerate(live):
            lp, idx = logp[b].topk(min(width, logp.shape[-1]))
            for p, i in zip(lp.tolist(), idx.tolist()):
                proposals.append((nodes[node].score + p, b, i, p))
        proposals.sort(key=lambda c: -c[0])
        survivors = []
        for rank, (score, b, tok, p) in enumerate(proposals):
            status = "pruned"
            if rank < width:
                status = "finished" if tok == eos_id else "kept"
            nodes.append(BeamNode(tok, live[b], step, p, score, status))
            if status == "finished":
                finished.append((len(nodes) - 1, seqs[b] + [tok]))
            elif status == "kept":
                survivors.append((len(nodes) - 1, b, tok))
        if not survivors:
            live = []
            break
        parents = torch.tensor([b for _, b, _ in survivors], device=dev)
        for c in caches:
            c["k"], c["v"] = c["k"][parents], c["v"][parents]
        seqs = [seqs[b] + [tok] for _, b, tok in survivors]
        live = [n for n, _, _ in survivors]
        if step == max_new:
            break
        new = torch.tensor([[tok] for _, _, tok in survivors], device=dev)
        logits, _weights = feed(model, new, caches, len(seqs[0]) - 1, capture=False)
        last = logits[:, -1]
    n_prompt = len(prompt_ids)
    hyps = [(n, s, True) for n, s in finished] + [(n, s, False) for n, s in zip(live, seqs)]
    beams = [{"node": n, "ids": s, "score": nodes[n].score, "finished": f,
              "norm_score": _norm(nodes[n].score, len(s) - n_prompt, length_penalty)} for n, s, f in hyps]
    beams.sort(key=lambda h: -h["norm_score"])
    return BeamSearch(prompt_ids=list(prompt_ids), nodes=nodes, beams=beams[:width], width=width,
                      length_penalty=length_penalty)


def sequence_logprob(model, ids, n_prompt: int) -> float:
    """Σ log Pr(t_n | t_<n) over the generated part of ids, by one full pass (checks beam scores)."""
    logits, _weights = full_recompute(model, ids)
    logp = torch.log_softmax(torch.from_numpy(logits).double(), dim=-1).numpy()
    return float(sum(logp[i - 1, ids[i]] for i in range(n_prompt, len(ids))))



@dataclass(frozen=True)
class Generated:
    """A continuation written with the key/value cache, and how far it lies from recomputing the whole sequence."""
    run: Generation                  # weights (L, H, N, N)
    logits_gap: float                # largest |cached − full recompute| of the logits
    weights_gap: float               # … and of the attention weights


def generate_checked(model, prompt_ids, max_new: int, strategy: str, k: int, temperature: float, seed: int,
                     eos_id: int | None) -> Generated:
    """generate(), then the same ids recomputed in one pass: the cache must change nothing."""
    run = generate(model, list(prompt_ids), max_new, strategy, k, temperature, seed, eos_id)
    logits, weights = full_recompute(model, run.ids)
    return Generated(run, float(abs(run.logits - logits).max()), float(abs(run.weights - weights).max()))


@dataclass(frozen=True)
class BeamResult:
    tree: BeamSearch
    greedy_ids: list[int]            # greedy decoding of the same prompt and length
    greedy_logprob: float            # its Σ log p over the new tokens


def beam_and_greedy(model, prompt_ids, width: int, max_new: int, eos_id: int | None,
                    length_penalty: float) -> BeamResult:
    """Beam search and, for comparison, greedy decoding of the same prompt and length."""
    tree = beam_search(model, list(prompt_ids), width, max_new, eos_id, length_penalty)
    greedy = generate(model, list(prompt_ids), max_new, eos_id=eos_id).ids
    return BeamResult(tree, greedy, sequence_logprob(model, greedy, len(prompt_ids)))
