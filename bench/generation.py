"""Generation speed: the key/value cache against recomputing the whole prefix at every step
(same model, same prompt, same greedy tokens, measured side by side in one run)."""
import torch

from bench._timing import wall_ms
from model.engine.config import preset
from model.engine.transformer import Transformer
from model.tasks.generation import generate


def _recompute_greedy(model, prompt: list[int], max_new: int) -> list[int]:
    ids = list(prompt)
    with torch.inference_mode():
        for _ in range(max_new):
            ids.append(int(model(torch.tensor([ids]))[0, -1].argmax()))
    return ids


def run(quick: bool = False) -> dict:
    torch.manual_seed(0)
    model = Transformer(preset("compact-long", 330, kind="decoder", norm="pre", activation="gelu")).eval()
    out = {}
    for n_prompt in ((128,) if quick else (32, 128, 384)):
        prompt = torch.randint(7, 330, (n_prompt,)).tolist()
        max_new = 16 if quick else 64
        cached = generate(model, prompt, max_new).ids
        assert cached == _recompute_greedy(model, prompt, max_new), "cache changed the greedy tokens"
        repeats = 1 if quick else 3
        t_cache = wall_ms(lambda: generate(model, prompt, max_new), repeats, min) / 1e3
        t_full = wall_ms(lambda: _recompute_greedy(model, prompt, max_new), repeats, min) / 1e3
        out[f"generation_kv_cache_tokens_per_s_prompt{n_prompt}"] = round(max_new / t_cache, 1)
        out[f"generation_recompute_tokens_per_s_prompt{n_prompt}"] = round(max_new / t_full, 1)
        out[f"generation_kv_cache_speedup_prompt{n_prompt}"] = round(t_full / t_cache, 2)
    return out
