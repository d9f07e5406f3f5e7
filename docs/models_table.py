"""The README's table of shipped models: what each is, its main held-out figure and the baseline it is read against,
one row per model. Keys name metrics in assets/<name>.json (and assets/finetune/); a key a model's JSON lacks shows
as "–" until the model is evaluated again."""
from docs.sources import show

# (model, what it is, main figures, baselines): each figure (label, metric key)
ROWS = [
    ("general_gpt", "GPT-style decoder on real text, byte-level BPE, 4L × 4H, d 128",
     [("perplexity", "perplexity_heldout_real")],
     [("Kneser–Ney 4-gram", "kn4_perplexity_heldout_real"), ("ratio", "perplexity_ratio_vs_kn4"),
      ("bigram", "bigram_perplexity_heldout_real")]),
    ("general_encoder", "BERT-style masked-LM encoder on real text, BPE, 4L × 4H, d 128",
     [("masked-piece acc.", "mlm_acc_heldout_real")],
     [("Kneser–Ney 3-gram fill", "mlm_baseline_kn3_fill_real"), ("most frequent", "mlm_baseline_most_frequent_real")]),
    ("sparse_encoder", "masked-LM encoder, window ±8 + global [CLS], 512 pieces",
     [("masked-piece acc.", "mlm_accuracy"), ("full attention", "mlm_accuracy_full_attention")],
     [("Kneser–Ney 3-gram fill", "mlm_baseline_kn3_fill"), ("most frequent", "mlm_baseline_most_frequent")]),
    ("zh_gpt", "GPT-style decoder on modern Chinese, Chinese BPE, 4L × 4H, d 128",
     [("perplexity", "perplexity_heldout_real")],
     [("Kneser–Ney 4-gram", "kn4_perplexity_heldout_real"), ("ratio", "perplexity_ratio_vs_kn4"),
      ("bigram", "bigram_perplexity_heldout_real")]),
    ("zh_encoder", "BERT-style masked-LM encoder on modern Chinese, Chinese BPE, 4L × 4H, d 128",
     [("masked-piece acc.", "mlm_acc_heldout_real")],
     [("Kneser–Ney 3-gram fill", "mlm_baseline_kn3_fill_real"), ("most frequent", "mlm_baseline_most_frequent_real")]),
    ("coref_encoder", "general_encoder + course-world MLM and a pronoun cloze (the default model)",
     [("ordinary sentences, cued", "coref_acc_realtext_test_cued"), ("course world", "coref_acc_heldout_pairs")],
     [("nearest noun", "coref_baseline_nearest_noun_realtext_test_cued"),
      ("course world's nearest noun", "baseline_nearest_noun")]),
    ("zh_coref", "zh_encoder + Chinese course-world MLM and a pronoun cloze (他/她/它/他们/她们)",
     [("ordinary Chinese sentences, cued", "coref_acc_realtext_test_cued"),
      ("course world", "coref_acc_heldout_pairs")],
     [("nearest noun", "coref_baseline_nearest_noun_realtext_test_cued"),
      ("course world's nearest noun", "baseline_nearest_noun")]),
    ("minilm", "all-MiniLM-L6-v2, pretrained BERT, 6L × 12H, d 384 (installed, not trained here)",
     [("ordinary sentences, cued", "coref_acc_realtext_test_cued")],
     [("nearest noun", "coref_baseline_nearest_noun_realtext_test_cued")]),
    ("incontext_copy", "2-layer attention-only decoder: the induction lesson",
     [("copy acc.", "incontext_copy_acc"), ("induction head zeroed", "incontext_copy_acc_without_induction_head")],
     [("first copy", "first_copy_acc"), ("chance", "chance")]),
    ("relative_digits", "1-layer encoder, learned relative-position bias, (x[i−1] − x[i+2]) mod 10",
     [("accuracy", "accuracy")],
     [("without the bias", "accuracy_without_the_bias"), ("chance", "chance")]),
    ("translator", "English → Chinese encoder-decoder, 3 + 3 layers, post-LN",
     [("exact match", "exact_match_heldout"), ("BLEU", "bleu_heldout")],
     [("held-out templates", "exact_match_heldout_templates")]),
    ("translator_zh_en", "Chinese → English encoder-decoder, 3 + 3 layers, post-LN; 我有一只猫 → i have a cat",
     [("exact match", "exact_match_heldout"), ("sacreBLEU", "sacrebleu_heldout")],
     [("held-out templates", "exact_match_heldout_templates"), ("possession", "exact_match_heldout_possession")]),
    ("vit_digits", "ViT on scikit-learn's digits", [("test acc.", "test_acc")],
     [("`<cls>` on ink", "cls_attention_on_ink"), ("uniform", "cls_attention_on_ink_uniform")]),
    ("swin_digits", "Swin as published on the digits", [("test acc.", "test_acc")],
     [("outside a window", "attention_outside_window")]),
    ("davit_digits", "DaViT: spatial windows and channel attention", [("test acc.", "test_acc")],
     [("outside a window", "attention_outside_window")]),
    ("imagegpt_digits", "ImageGPT: digits in 8 grey levels, raster order",
     [("bits per pixel", "bits_per_pixel_heldout")],
     [("per-position", "bits_per_pixel_baseline")]),
    ("vit_scenes", "ViT on generated \"which shape is red?\" scenes", [("test acc.", "test_acc")],
     [("`<cls>` on the shape", "cls_attention_on_objects"), ("uniform", "cls_attention_on_objects_uniform")]),
    ("swin_scenes", "Swin on the same scenes", [("test acc.", "test_acc")],
     [("rollout on the shape", "pooled_rollout_on_objects"), ("uniform", "pooled_rollout_on_objects_uniform")]),
    ("finetune_cls", "general_encoder + [CLS] head: a masked word's part of speech",
     [("acc.", "cls_acc_heldout"), ("frozen", "cls_acc_heldout_frozen")],
     [("bag of words", "cls_baseline_bow"), ("majority", "cls_baseline_majority")]),
    ("finetune_binary", "general_encoder + one number, σ: noun or verb?",
     [("acc.", "binary_acc_heldout"), ("frozen", "binary_acc_heldout_frozen")],
     [("bag of words", "binary_baseline_bow"), ("majority", "binary_baseline_majority")]),
    ("finetune_tag", "general_encoder + a tag per token",
     [("acc.", "tag_acc_heldout"), ("frozen", "tag_acc_heldout_frozen")],
     [("training tag", "tag_baseline_lookup"), ("always O", "tag_baseline_majority")]),
    ("finetune_span", "general_encoder + start/end heads: question answering",
     [("exact match", "span_exact_match_heldout"), ("F1", "span_f1_heldout")],
     [("frozen exact match", "span_exact_match_heldout_frozen")]),
    ("finetune_nsp", "general_encoder + [CLS] head: next sentence",
     [("acc.", "nsp_acc_heldout"), ("frozen", "nsp_acc_heldout_frozen")],
     [("word overlap", "nsp_baseline_overlap"), ("majority", "nsp_baseline_majority")]),
]


def cell(figures: dict, pairs: list[tuple[str, str]]) -> str:
    """"label value; label value" of one model's figures."""
    return "; ".join(f"{label} {show(figures.get(key), key)}" for label, key in pairs)


def table(all_metrics: dict[str, dict]) -> list[str]:
    """The table's Markdown lines: a link to the model's doc section, what it is, its figures, its baselines."""
    lines = ["| model | what | held-out figure | baseline |", "|---|---|---|---|"]
    for name, what, main, baseline in ROWS:
        figures = all_metrics.get(name, {})
        lines.append(f"| [`{name}`](docs/models.md#{name}) | {what} | {cell(figures, main)} | "
                     f"{cell(figures, baseline)} |")
    return lines
