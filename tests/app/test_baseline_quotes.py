"""Where a page quotes a shipped text model's held-out quality, it quotes the Kneser–Ney baseline beside it, with
the right verdict: the decoder's caption (app_pages/views/generation.py) and the sparse encoder's evaluation
(app_pages/views/masks_live.py), read from the model's metadata."""
from app_pages.views import masks_live
from app_pages.views.generation import describe

CONFIG = dict(n_layers=4, n_heads=4, d_model=128, pos_encoding="learned", max_len=128, vocab_size=8192)


def decoder_meta(ppl: float, kn4: float | None) -> dict:
    metrics = {"perplexity_heldout_real": ppl, "bigram_perplexity_heldout_real": 150.0}
    if kn4 is not None:
        metrics["kn4_perplexity_heldout_real"] = kn4
    return {"config": CONFIG, "recipe": {}, "metrics": metrics}


def test_the_decoder_caption_quotes_the_kneser_ney_4gram_beside_the_bigram():
    losing = describe("general_gpt", decoder_meta(68.9, 66.4))
    assert "against 150.0 for a bigram" in losing
    assert "A Kneser–Ney 4-gram counted on the same text scores 66.4: the counts still win." in losing
    winning = describe("general_gpt", decoder_meta(55.0, 66.4))
    assert "scores 66.4: the model beats it." in winning
    assert "Kneser–Ney" not in describe("general_gpt", decoder_meta(55.0, None))


def test_the_sparse_evaluation_quotes_the_kneser_ney_fill_after_the_most_frequent_guess():
    metrics = {"mlm_accuracy": 0.17, "mlm_accuracy_full_attention": 0.028, "mlm_baseline_most_frequent": 0.0425,
               "mlm_baseline_kn3_fill": 0.391, "eval_masked_tokens": 1859, "eval_tokens_per_sequence": 512,
               "pattern_width": 8, "pattern_global_tokens": 1}
    line = masks_live.evaluation({"tokenizer": {"type": "bpe"}, "metrics": metrics})
    base, kn = line.index("**4.2%**"), line.index("**39.1%**")
    assert base < kn and "most frequent piece" in line[base:kn]
    assert "Kneser–Ney trigram counted on the training text" in line[kn:] and line.endswith("either side.")
    del metrics["mlm_baseline_kn3_fill"]
    assert "Kneser–Ney" not in masks_live.evaluation({"tokenizer": {"type": "bpe"}, "metrics": metrics})
