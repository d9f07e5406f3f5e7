"""Claims about the shipped general models (the bars they are held to): `python -m model.evaluate --json` on them prints
the contract's keys, the decoder beats a bigram model by 10% on held-out real text, the encoder fills in
masked pieces far above its baseline, a head attends to the previous token, no text gives [UNK]."""
import json
import math
import subprocess
import sys
from pathlib import Path

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


def test_evaluate_prints_the_keys_and_reproduces_the_recorded_numbers(evaluated):
    assert COMMON | {"perplexity_heldout_real", "bigram_perplexity_heldout_real",
                     "perplexity_ratio_vs_bigram"} <= set(evaluated["general_gpt"])
    assert COMMON | {"mlm_acc_heldout_real", "mlm_baseline_most_frequent_real"} <= set(evaluated["general_encoder"])
    for name, found in evaluated.items():
        recorded = checkpoints.read_meta(name)["metrics"]
        for key, value in found.items():
            assert recorded[key] == pytest.approx(value, abs=1e-4), (name, key)


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
