"""Numbers a lecturer cites, shown where the idea is taught (AppTest, English): attention is non-linear without an
activation (12.2.3) and d_v may differ from d_k (12.2.2) on the step-by-step page, the tutorial's d = 512, h = 8 by
its multi-head step, D = 1024 and |V| = 30,000 (12.5.2) and the row-vs-column embedding conventions by the lookup,
BERT's and GPT-3's sizes by the fill-in and few-shot tabs and on the Architecture page, ImageGPT's sizes and its
classifier on averaged features by the ImageGPT model. Expected values are computed here, from the course texts'
numbers and plain numpy, not read from the page's code."""
import numpy as np

from model import checkpoints
from tests.app.conftest import open_page


def said(at) -> str:
    return " ".join(e.value for kind in ("markdown", "caption", "success", "info") for e in getattr(at, kind))


def open_tab(at, key: str, label: str):
    at.session_state[key] = label
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return said(at)


def softmax_rows(s):
    e = np.exp(s - s.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def test_step_by_step_shows_attention_non_linear_and_the_head_sizes():
    at = open_page("step_by_step.py", timeout=180)
    # the lecture's example (seed 42, two tokens of width 4, d_k = 3), doubled: plain numpy, not model/reference
    rng = np.random.RandomState(42)
    X = rng.randn(2, 4).round(4)
    WQ, WK, WV = (rng.randn(4, 3).round(4) for _ in range(3))

    def sa(x):
        w = softmax_rows((x @ WQ) @ (x @ WK).T / np.sqrt(3))
        return w @ (x @ WV), w

    (z1, w1), (z2, w2) = sa(X), sa(2 * X)
    text = open_tab(at, "steps_tab", "The lecture's example")
    assert "**Non-linear without an activation** (textbook 12.2.3)" in text
    assert f"row 1 goes from [{w1[0, 0]:.4f}, {w1[0, 1]:.4f}] to [{w2[0, 0]:.4f}, {w2[0, 1]:.4f}]" in text
    assert f"differs from 2·Sa(X) by up to **{np.abs(z2 - 2 * z1).max():.4f}**" in text
    assert np.abs(z2 - 2 * z1).max() > 0.05                                   # far from linear
    c = checkpoints.read_meta("coref_encoder")["config"]
    d, h = c["d_model"], c["n_heads"]
    text = open_tab(at, "steps_tab", "One head")
    assert "v may have another (textbook 12.2.2)" in text and f"d_k = d_v = d_model / H = {d} / {h} = {d // h}" in text
    text = open_tab(at, "steps_tab", "Multi-head")
    assert f"d_model = 512 and h = 8 heads, so each head works in d_k = 512 / 8 = 64 dimensions; this model: " \
           f"{d} / {h} = {d // h}" in text


def test_the_lookup_gives_the_textbooks_typical_table_and_links_rows_and_columns():
    at = open_page("tokenization.py", timeout=180)
    text = said(at)
    assert f"D = 1,024 and |V| = 30,000: Ωₑ alone then holds 1,024 × 30,000 = {1024 * 30000:,} numbers" in text
    assert "an id picks a **column**" in text and "an id picks a **row**" in text
    assert "nn.Embedding(10000, 512)" in text


def test_fill_in_and_few_shot_cite_bert_and_gpt3():
    at = open_page("generation.py", timeout=180)
    text = open_tab(at, "gen_tab", "Fill-in (encoder)")
    assert ("BERT-base has L = 12 layers, H = 768 and A = 12 heads, 110 million parameters; BERT-large L = 24, "
            "H = 1024, A = 16, 340 million") in text
    text = open_tab(at, "gen_tab", "Learning from the prompt")
    assert ("GPT-3: 175 billion parameters in 96 layers of width 12,288 with 96 heads, a context of 2,048 tokens, "
            "trained on 300 billion tokens") in text


def test_architecture_lists_the_published_sizes_beside_the_model():
    at = open_page("architecture.py", timeout=180)
    assert not at.exception
    table = next(d.value for d in at.dataframe if "cited from" in d.value.columns).set_index("model")
    assert table.loc["BERT-large", ["layers", "d_model", "heads h", "d_k", "d_ff"]].tolist() == ["24", "1,024", 16,
                                                                                                "64", "4,096"]
    assert table.loc["GPT-3", "parameters"] == "175B" and table.loc["BERT-base", "parameters"] == "110M"
    assert table.loc["Transformer (tutorial)", ["layers", "d_model", "heads h"]].tolist() == ["6 + 6", "512", 8]
    assert "each within 2% of the total its source states" in said(at)


def test_imagegpt_cites_its_sizes_and_its_classifier_on_averaged_features():
    at = open_page("images.py", timeout=180)
    at.radio(key="img_model").set_value("imagegpt_digits").run()
    assert not at.exception
    text = said(at)
    assert "its largest has 6.8 billion parameters and still reads only 64×64 images" in text
    assert "one of 512 colours" in text and "**averaged**" in text and "27.4% top-1 error on 48×48 ImageNet" in text
    model, _ = checkpoints.load("imagegpt_digits")
    assert f"This one: {sum(p.numel() for p in model.parameters()):,} parameters" in text
