"""Claims about the shipped Chinese→English translator (assets/translator_zh_en.*): it writes the tutorial's
"i have a cat" for 我有一只猫 under the 5 × 5 causal mask the tutorial draws (§5.1), its held-out figures, and what
`python -m model.evaluate --json translator_zh_en` prints."""
import json
import subprocess
import sys

import numpy as np
import pytest
import torch

from model import checkpoints
from model.data import translation_corpus_zh_en as corpus
from model.engine import masks
from model.tasks import translation as translate
from model.training.recipes import translator_zh_en

# The tutorial's mask over "<Begin> I have a cat" (positions 0-4): row i may attend to columns 0..i.
TUTORIAL_MASK = np.array([[1, 0, 0, 0, 0],
                          [1, 1, 0, 0, 0],
                          [1, 1, 1, 0, 0],
                          [1, 1, 1, 1, 0],
                          [1, 1, 1, 1, 1]], dtype=bool)


@pytest.fixture(scope="module")
def shipped():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield translator_zh_en.load()
    torch.set_num_threads(before)


def test_the_tutorials_sentence_is_translated_under_its_5_by_5_causal_mask(shipped):
    model, src_tok, tgt_tok = shipped
    run = translate.run(model, src_tok, tgt_tok, "我有一只猫")
    assert run.output == "i have a cat"
    assert run.src_tokens == ("我", "有", "一", "只", "猫")
    assert run.tokens == ("[BOS]", "i", "have", "a", "cat") and run.written == ("i", "have", "a", "cat", "[EOS]")
    assert np.array_equal(masks.causal(len(run.tokens)), TUTORIAL_MASK)
    assert run.weights.shape == (3, 4, 5, 5) and np.all(run.weights[:, :, ~TUTORIAL_MASK] == 0)
    np.testing.assert_allclose(run.weights.sum(-1), 1.0, atol=1e-5)
    assert run.cross_weights.shape == (3, 4, 5, 5)                 # 5 steps written × 5 characters read
    # the step writing "cat" looks at 猫 more than at 我 (mean of the last layer's heads)
    w = run.cross_weights[-1].mean(0)
    assert w[run.written.index("cat"), 4] > w[run.written.index("cat"), 0]


def test_sentences_with_their_full_stop_and_questions_translate_too(shipped):
    model, src_tok, tgt_tok = shipped
    out = {zh: translate.run(model, src_tok, tgt_tok, zh).output for zh in ("我有一只猫。", "你有几只狗？")}
    assert out == {"我有一只猫。": "i have a cat .", "你有几只狗？": "how many dogs do you have ?"}


def test_shipped_meta_describes_a_chinese_to_english_encoder_decoder():
    meta = checkpoints.read_meta("translator_zh_en")
    assert meta["modality"] == "translation" and meta["config"]["kind"] == "encoder_decoder"
    assert meta["direction"] == "zh-en" and meta["recipe"]["corpus"] == "model.data.translation_corpus_zh_en"
    assert "猫" in meta["tokenizer"]["vocab"] and "cat" in meta["tgt_tokenizer"]["vocab"]


def test_exact_match_is_the_share_of_sentences_translated_word_for_word(shipped):
    """On every tenth held-out pair: the batched measure's exact match equals a count of one-sentence-at-a-time
    greedy translations that equal the reference."""
    model, src_tok, tgt_tok = shipped
    pairs = corpus.heldout_pairs()[::10]
    found = translator_zh_en.measure(model, src_tok, tgt_tok, pairs)
    right = [translate.en_text(tgt_tok, translate.greedy(model, translate.source_ids(src_tok, p.zh),
                                                         capture=False).ids) == p.en for p in pairs]
    assert found["heldout_n"] == len(pairs) == 74
    assert found["exact_match_heldout"] == pytest.approx(sum(right) / len(pairs), abs=1e-4)


def test_evaluate_prints_the_heldout_figures_and_the_tutorials_output():
    out = subprocess.run([sys.executable, "-m", "model.evaluate", "--json", "translator_zh_en"], capture_output=True,
                         text=True, timeout=600, check=True)
    figures = json.loads(out.stdout)["translator_zh_en"]
    assert {"exact_match_heldout", "sacrebleu_heldout", "sacrebleu_signature", "exact_match_heldout_templates",
            "exact_match_heldout_combinations", "exact_match_heldout_possession", "heldout_n",
            "tutorial_output"} <= set(figures)
    assert figures["heldout_n"] == 740 and figures["heldout_possession_n"] == 220
    assert figures["tutorial_source"] == "我有一只猫" and figures["tutorial_output"] == "i have a cat"
    assert figures["tutorial_exact"] is True
    assert figures["exact_match_heldout"] >= 0.85 and figures["sacrebleu_heldout"] >= 90
    assert figures["exact_match_heldout_possession"] >= 0.85
    assert "version:2.6.0" in figures["sacrebleu_signature"]
    # the same figures as the shipped JSON (written when the model was trained)
    kept = checkpoints.read_meta("translator_zh_en")["metrics"]
    assert figures["exact_match_heldout"] == kept["exact_match_heldout"]
    assert figures["sacrebleu_heldout"] == kept["sacrebleu_heldout"]
