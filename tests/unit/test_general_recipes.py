"""The general text recipes end to end on a tiny model and a tiny corpus: train a few seconds, save, load back,
evaluate; resume from the checkpoint. The real corpus is replaced by a handful of documents."""
import json

import pytest
import torch

from model import checkpoints
from model.data.real_text import Corpus, Document
from model.training import real_text_batches as rtb
from model.training import resumable
from model.training.recipes import general_encoder, general_gpt

EN = ["The cat sat on the mat while the dog slept by the fire in the old house.",
      "A train pulled into the station and the passengers stepped onto the platform with their bags.",
      "walk: use one's feet to advance; advance by steps. The patient is walking again.",
      "It takes great courage to let yourself appear weak, and more to say so out loud to a friend."]
ZH = ["我有一只猫。", "床前明月光，疑是地上霜。"]
TINY = dict(d_model=16, n_heads=2, n_layers=2, d_ff=32, context=32, batch=4, checkpoint_min=0.01, eval_every=1,
            score_docs=4, induction_span=12, induction_seqs=2)


def tiny_corpus() -> Corpus:
    train = [Document(f"{t} ({i})", "wordnet", "en") for i in range(40) for t in EN]
    train += [Document(t, "fortunes-zh", "zh") for t in ZH]
    return Corpus(train, [Document(t, "fortunes", "en") for t in EN] + [Document(ZH[0], "fortunes-zh", "zh")])


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    monkeypatch.setattr(rtb, "corpus", tiny_corpus)
    monkeypatch.setattr(checkpoints, "ASSETS", tmp_path / "assets")
    monkeypatch.setenv("ATTENTION_LAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("ATTENTION_LAB_BUDGET_MIN", "0.02")          # about a second
    monkeypatch.delenv("ATTENTION_LAB_RESUME", raising=False)
    return tmp_path


COMMON = ("unk_rate_heldout_real", "tokens_per_word_heldout_real", "previous_token_score_best",
          "induction_score_best")


@pytest.mark.parametrize("recipe, keys, rule", [
    (general_gpt, ("perplexity_heldout_real", "bigram_perplexity_heldout_real", "perplexity_ratio_vs_bigram"), "bos"),
    (general_encoder, ("mlm_acc_heldout_real", "mlm_baseline_most_frequent_real"), "cls_sep"),
])
def test_a_tiny_run_saves_a_model_that_loads_and_evaluates(tiny, recipe, keys, rule):
    trained = recipe.train(seed=0, folder=tiny / "ckpt", **TINY)
    model, meta = checkpoints.load(recipe.NAME)
    assert meta["text_input"] == rule and meta["modality"] == "text"
    assert meta["tokenizer"] == {"type": "bpe", "file": "bpe_8k.json"}
    assert meta["recipe"]["steps_done"] >= 1 and meta["recipe"]["runs"] == 1
    found = recipe.evaluate()
    assert found == trained == meta["metrics"] == recipe.export(tiny / "ckpt")
    assert found["unk_rate_heldout_real"] == 0
    for k in COMMON + keys:
        assert isinstance(found[k], float), k
    assert 0 <= found["previous_token_score_best"] <= 1 and 0 <= found["induction_score_best"] <= 1
    # the shipped weights are untied copies: the output layer equals the token embedding
    assert torch.equal(model.lm_head.weight, model.embed.tok.weight)
    assert model.lm_head.weight.data_ptr() != model.embed.tok.weight.data_ptr()
    if "perplexity_ratio_vs_bigram" in keys:
        assert found["perplexity_ratio_vs_bigram"] == pytest.approx(
            found["perplexity_heldout_real"] / found["bigram_perplexity_heldout_real"], rel=1e-3)


def tiny_run(folder, n_steps_before=0, elapsed=None):
    """resumable.run on a tiny decoder; with elapsed, a checkpoint of a run that used `elapsed` of 100 s."""
    model = resumable.tie(general_gpt.Transformer(general_gpt.config({**general_gpt.RECIPE, **TINY}, 50)))
    if elapsed is not None:
        state = {"steps": n_steps_before, "tokens": 640, "train_seconds": elapsed, "runs": 1,
                 "run_budget_s": 100.0, "run_elapsed_s": elapsed}
        resumable.save_state("tiny", model, state, folder)
    batches = lambda state: lambda step: torch.randint(0, 50, (2, 9))    # noqa: E731
    return resumable.run("tiny", model, batches, general_gpt.loss_fn, {**general_gpt.RECIPE, **TINY}, folder)[0]


def test_resume_continues_from_the_checkpoint_and_a_plain_run_starts_afresh(tiny, monkeypatch):
    first = tiny_run(tiny)
    monkeypatch.setenv("ATTENTION_LAB_RESUME", "1")
    second = tiny_run(tiny)
    assert second["runs"] == 2 and second["steps"] > first["steps"] and second["tokens"] > first["tokens"]
    monkeypatch.delenv("ATTENTION_LAB_RESUME")
    assert tiny_run(tiny)["runs"] == 1
    assert json.loads((tiny / "tiny.ckpt.json").read_text())["runs"] == 1


def test_an_unfinished_run_continues_for_the_rest_of_its_budget_and_a_finished_one_starts_anew(tiny, monkeypatch):
    monkeypatch.setenv("ATTENTION_LAB_RESUME", "1")
    # a fixed measured speed (20 steps per CPU second), so the steps a budget buys are known whatever the load
    monkeypatch.setattr(resumable, "steps_per_cpu_second", lambda *args: 20.0)
    state = tiny_run(tiny, n_steps_before=5, elapsed=99.5)          # 0.5 s left of its 100 s: 10 more steps
    assert state["runs"] == 1 and state["run_budget_s"] == 100 and state["steps"] == 5 + 10
    state = tiny_run(tiny, n_steps_before=5, elapsed=100.0)         # done: a new run of the set budget, 1.2 s
    assert state["runs"] == 2 and state["run_budget_s"] == pytest.approx(0.02 * 60) and state["steps"] == 5 + 24
    monkeypatch.setenv("ATTENTION_LAB_BUDGET_MIN", "0")                # no time: the weights stay as they were
    assert tiny_run(tiny, n_steps_before=5, elapsed=100.0)["steps"] == 5


def test_windows_have_the_specials_of_each_kind_and_repeat_spans():
    ids = torch.arange(100, 1100).numpy()
    dec = rtb.Windows(ids, 16, "decoder", repeat_share=0.0).batch(3)
    enc = rtb.Windows(ids, 16, "encoder", repeat_share=1.0).batch(3)
    assert dec.shape == (3, 17) and (dec[:, 1:] - dec[:, :-1] == 1).all()
    assert enc.shape == (3, 16) and (enc[:, 0] == rtb.CLS).all() and (enc[:, -1] == rtb.SEP).all()
    assert all(len(set(row[1:-1].tolist())) < 14 for row in enc)          # a span of ≥ 8 occurs twice


@pytest.mark.parametrize("text", ["The cat sat.", " leading space", "我有一只猫", "Mixed 中文 text", "", "\ttab",
                                  "[MASK] stays text", "emoji 👩‍👩‍👧 family", "a"])
def test_batch_encoding_gives_the_ids_of_the_tokenizer(text):
    tok = rtb.BPETokenizer.from_file()
    assert rtb.encode_texts(tok, [text]) == [tok.encode(text).ids]


def test_mlm_masking_hides_only_ordinary_tokens_and_labels_only_them():
    ids = torch.tensor([[rtb.CLS] + list(range(100, 1100)) + [rtb.SEP]])
    inputs, labels = rtb.mask_for_mlm(ids, 8192, torch.Generator().manual_seed(0), prob=0.2)
    chosen = labels != -100
    assert not chosen[0, 0] and not chosen[0, -1]
    assert 150 <= int(chosen.sum()) <= 250                              # about 20% of 1000
    assert (labels[chosen] == ids[chosen]).all()
    assert (inputs[~chosen] == ids[~chosen]).all()
    assert 0.7 < float((inputs[chosen] == rtb.MASK).float().mean()) < 0.9
    all_masked, _ = rtb.mask_for_mlm(ids, 8192, torch.Generator().manual_seed(0), prob=0.2, keep_random=False)
    assert (all_masked[chosen] == rtb.MASK).all()
