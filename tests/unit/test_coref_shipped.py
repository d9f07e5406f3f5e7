"""Claims about the shipped coref_encoder: it reads any text in BPE pieces, the bars it is held to on held-out
data (mostly sentences with words outside the old course vocabulary), the head chosen on validation, the
textbook paragraph resolved, the CLI's JSON contract in whole words."""
import json
import subprocess
import sys

import numpy as np
import pytest
import torch

from model import checkpoints
from model.coref import main as coref_cli
from model.data import bpe, text_input
from model.data import course_world as corpus
from model.engine.capture import capturing
from model.engine.transformer import Transformer
from model.tasks.coreference import resolve
from model.training.recipes import coref_encoder as recipe


@pytest.fixture(scope="module")
def shipped():
    model, meta = checkpoints.load("coref_encoder")
    return model, meta, text_input.tokenizer_of(meta)


@pytest.fixture(scope="module")
def metrics():
    return recipe.evaluate()


def test_shipped_model_is_a_transformer_encoder_with_the_recipe_size(shipped):
    model, meta, tok = shipped
    assert isinstance(model, Transformer) and model.config.kind == "encoder"
    c = model.config
    assert (c.n_layers, c.n_heads, c.d_model, c.d_ff, c.pos_encoding, c.norm) == (4, 4, 128, 512, "learned", "pre")
    assert isinstance(tok, bpe.BPETokenizer) and meta["text_input"] == "cls_sep"
    assert model.lm_head.out_features == len(tok) and meta["modality"] == "text"


def test_evaluation_meets_the_bars(metrics):
    assert metrics["coref_acc_heldout_pairs"] >= 0.95
    assert metrics["coref_acc_heldout_frames"] >= 0.95
    assert metrics["coref_pair_acc_heldout"] >= 0.90
    assert metrics["coref_acc_heldout_pairs"] > metrics["baseline_nearest_noun"] + 0.3
    assert metrics["coref_acc_heldout_pairs"] > metrics["baseline_first_noun"] + 0.3
    assert metrics["mlm_acc"] > 0.5
    assert metrics["heldout_share_new_words"] >= 0.5       # most held-out sentences hold a grown WordNet noun
    assert metrics["mlm_acc_heldout_real"] >= 0.15          # it still reads real text


@torch.inference_mode()
def test_held_out_accuracy_is_a_count_of_the_heads_top_word_at_each_pronoun(shipped, metrics):
    """coref_acc_heldout_pairs counted here: each held-out schema sentence read alone (no padding), the chosen
    head's rows of the pronoun's pieces averaged, summed over each word's pieces, its top word compared with the
    antecedent (word i of the text is word i + 1 after [CLS])."""
    model, meta, tok = shipped
    layer, head = meta["coref_head"]
    right = total = 0
    for sample in corpus.eval_samples("heldout_pairs", recipe.RECIPE["eval_pairs"]):
        enc = text_input.encode(tok, sample.text, "cls_sep")
        with capturing():
            w = model.encode(torch.tensor([enc.ids])).intermediates[layer].weights[0, head].double().numpy()
        for ref in sample.refs:
            row = w[list(enc.words[ref.pronoun_index + 1])].mean(0)                     # (T,) over pieces
            per_word = [row[list(pieces)].sum() for pieces in enc.words]
            right += int(np.argmax(per_word) == ref.antecedent_index + 1)
            total += 1
    assert total >= recipe.RECIPE["eval_pairs"]
    assert metrics["coref_acc_heldout_pairs"] == pytest.approx(right / total, abs=1e-4)


def test_head_is_chosen_on_validation(shipped, metrics):
    model, meta, tok = shipped
    assert recipe.choose_head(model, tok) == meta["coref_head"] == metrics["coref_head"]


def test_paragraph_it_they_their_point_at_restaurant(shipped):
    model, meta, tok = shipped
    out = resolve(model, tok, corpus.PARAGRAPH, tuple(meta["coref_head"]))
    assert [(p["token"], p["antecedent"]) for p in out["pronouns"]] == [
        ("it", "restaurant"), ("they", "restaurant"), ("Their", "restaurant")]


@pytest.mark.parametrize("title,a,b,pronoun,ante_a,ante_b", corpus.MINIMAL_PAIRS)
def test_classic_minimal_pairs_flip(shipped, title, a, b, pronoun, ante_a, ante_b):
    model, meta, tok = shipped
    head = tuple(meta["coref_head"])
    got = [resolve(model, tok, t, head)["pronouns"][0]["antecedent"] for t in (a, b)]
    assert got == [ante_a, ante_b]


def test_cli_prints_the_json_contract_in_whole_words():
    # cello and knapsack are WordNet-grown nouns: [UNK] to the first 328-word vocabulary
    text = "The cello didn't fit into the knapsack because it was too small."
    out = subprocess.run([sys.executable, "-m", "model.coref", text, "--json"], capture_output=True, text=True,
                         check=True, timeout=120)
    data = json.loads(out.stdout)
    assert set(data) == {"tokens", "pieces", "pronouns"}
    assert data["tokens"] == ["[CLS]", "The", "cello", "didn't", "fit", "into", "the", "knapsack", "because", "it",
                              "was", "too", "small", ".", "[SEP]"]
    assert len(data["pieces"]) == len(data["tokens"]) and "".join(data["pieces"][7]) == " knapsack"
    assert len(data["pieces"][7]) > 1                     # a word the BPE holds only in pieces
    (p,) = data["pronouns"]
    assert set(p) == {"index", "token", "head", "antecedent", "antecedent_index", "top"}
    assert p["token"] == "it" and p["index"] == 9
    assert p["antecedent"] == "knapsack" and p["antecedent_index"] == 7       # not the first noun
    assert p["top"][0][0] == "knapsack" and 0 < p["top"][0][1] <= 1


def test_cli_refuses_a_head_outside_the_model(capsys):
    with pytest.raises(SystemExit) as exit_:
        coref_cli(["it", "--head", "9", "0"])
    assert exit_.value.code == 2
    assert "--head 9 0 (L9 H0) is outside 4 layers x 4 heads (L0 H0 to L3 H3)" in capsys.readouterr().err
