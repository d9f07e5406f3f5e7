"""Claims about the shipped general models (the bars they are held to): `python -m model.evaluate --json` on them prints
the contract's keys, the decoder beats a bigram model by 10% on held-out real text, the encoder fills in
masked pieces far above its baseline, a head attends to the previous token, no text gives [UNK]."""
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from model import checkpoints
from model.data import bpe
from model.training import real_text_batches as rtb
from model.training.recipes import general_gpt

ROOT = Path(__file__).resolve().parents[2]
COMMON = {"unk_rate_heldout_real", "tokens_per_word_heldout_real", "previous_token_score_best",
          "induction_score_best"}


@pytest.fixture(scope="module")
def evaluated() -> dict:
    out = subprocess.run([sys.executable, "-m", "model.evaluate", "--json", "general_gpt", "general_encoder"],
                         cwd=ROOT, capture_output=True, text=True, check=True, timeout=900)
    return json.loads(out.stdout)


def test_evaluate_prints_the_contract_keys(evaluated):
    assert COMMON | {"perplexity_heldout_real", "bigram_perplexity_heldout_real",
                     "perplexity_ratio_vs_bigram"} <= set(evaluated["general_gpt"])
    assert COMMON | {"mlm_acc_heldout_real", "mlm_baseline_most_frequent_real"} <= set(evaluated["general_encoder"])


def _heldout(name: str) -> tuple:
    """(model, the held-out sample evaluate reads: every recipe["eval_every"]-th held-out document with the model's
    specials, cut to its context)."""
    model, meta = checkpoints.load(name)
    r = meta["recipe"]
    rule = "bos" if name == "general_gpt" else "cls_sep"
    return model, rtb.heldout_sample(rtb.encode_split(bpe.load(), "heldout"), r["eval_every"], r["context"], rule)


@torch.inference_mode()
def test_printed_perplexity_is_the_mean_surprise_over_the_whole_held_out_sample(evaluated):
    """exp of the mean −log p(token | the tokens before it) over every held-out text, one text at a time, and the
    count of tokens it reads."""
    model, seqs = _heldout("general_gpt")
    nll = sum(-float(F.log_softmax(model(torch.tensor([ids[:-1]]))[0], -1)[torch.arange(len(ids) - 1),
                                                                         torch.tensor(ids[1:])].sum())
              for ids in seqs)
    gpt = evaluated["general_gpt"]
    assert gpt["heldout_tokens"] == sum(map(len, seqs))
    assert gpt["perplexity_heldout_real"] == pytest.approx(math.exp(nll / sum(len(s) - 1 for s in seqs)), rel=1e-4)


@torch.inference_mode()
def test_printed_fill_in_accuracy_agrees_with_a_count_under_masks_drawn_here(evaluated):
    """15% of each held-out text's ordinary pieces hidden behind [MASK] (positions drawn here, not evaluate's), the
    model's top piece at each compared with the hidden one: over about 4,000 masked pieces the share right is
    within three points of the printed accuracy (its standard error is under one)."""
    model, seqs = _heldout("general_encoder")
    rng = np.random.default_rng(7)
    right = total = 0
    for ids in seqs:
        x = torch.tensor([ids])
        hidden = torch.from_numpy(rng.random(len(ids)) < 0.15) & (x[0] >= len(bpe.SPECIALS))
        if hidden.any():
            guess = model(x.masked_fill(hidden[None], bpe.MASK))[0].argmax(-1)
            right += int((guess[hidden] == x[0][hidden]).sum())
            total += int(hidden.sum())
    assert total > 3000
    assert evaluated["general_encoder"]["mlm_acc_heldout_real"] == pytest.approx(right / total, abs=0.03)


def test_no_unknown_pieces_and_about_one_and_a_half_pieces_per_word(evaluated):
    for found in evaluated.values():
        assert found["unk_rate_heldout_real"] == 0
        assert found["tokens_per_word_heldout_real"] <= 1.5


def test_the_decoder_beats_the_bigram_by_ten_percent(evaluated):
    gpt = evaluated["general_gpt"]
    assert gpt["perplexity_ratio_vs_bigram"] <= 0.9
    assert gpt["perplexity_heldout_real"] < gpt["bigram_perplexity_heldout_real"]


def test_the_encoder_fills_in_far_above_its_baseline(evaluated):
    enc = evaluated["general_encoder"]
    assert enc["mlm_acc_heldout_real"] >= 0.2
    assert enc["mlm_acc_heldout_real"] >= 3 * enc["mlm_baseline_most_frequent_real"]


def test_a_head_attends_to_the_previous_token(evaluated):
    assert max(m["previous_token_score_best"] for m in evaluated.values()) >= 0.5


@torch.inference_mode()
def test_perplexity_matches_a_plain_one_text_at_a_time_loop():
    model, meta = checkpoints.load("general_gpt")
    tok = bpe.load()
    seqs = rtb.heldout_sample(rtb.encode_split(tok, "heldout"), 40, model.config.max_len, "bos")[:20]
    nll, n = 0.0, 0
    for ids in seqs:                       # log p(token | tokens before it), one text at a time, no padding
        logits = model(torch.tensor([ids[:-1]]))[0]
        nll -= float(F.log_softmax(logits, -1)[torch.arange(len(ids) - 1), torch.tensor(ids[1:])].sum())
        n += len(ids) - 1
    assert general_gpt.model_perplexity(model, seqs) == pytest.approx(math.exp(nll / n), rel=1e-4)
