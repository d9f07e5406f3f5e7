"""The general text recipes end to end on a tiny model and a tiny corpus: train a few seconds, save, load back,
evaluate; resume from the checkpoint. The real corpus is replaced by a handful of documents."""
import json
import math

import pytest
import torch
import torch.nn.functional as F
from safetensors.torch import load_file

from model import checkpoints
from model.data import bpe
from model.data.real_text import Corpus, Document
from model.engine.transformer import Transformer
from model.training import real_text_batches as rtb
from model.training import resumable, unlikelihood
from model.training.recipes import general_encoder, general_gpt

EN = ["The cat sat on the mat while the dog slept by the fire in the old house.",
      "A train pulled into the station and the passengers stepped onto the platform with their bags.",
      "walk: use one's feet to advance; advance by steps. The patient is walking again.",
      "It takes great courage to let yourself appear weak, and more to say so out loud to a friend."]
ZH = ["我有一只猫。", "床前明月光，疑是地上霜。"]
TINY = dict(d_model=16, n_heads=2, n_layers=2, d_ff=32, context=64, batch=4, checkpoint_min=0.01, eval_every=1,
            score_docs=4, induction_span=12, induction_seqs=2)      # context: a held-out text of 20 ids fits twice


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
    (general_gpt, ("perplexity_heldout_real", "bigram_perplexity_heldout_real", "perplexity_ratio_vs_bigram",
                   "kn3_perplexity_heldout_real", "kn4_perplexity_heldout_real", "perplexity_ratio_vs_kn4",
                   "induction_score_best_random", "copy_gain_heldout", "greedy_loop_rate_prompts"), "bos"),
    (general_encoder, ("mlm_acc_heldout_real", "mlm_baseline_most_frequent_real", "mlm_baseline_kn3_fill_real"),
     "cls_sep"),
])
def test_a_tiny_run_saves_a_model_that_loads_and_evaluates(tiny, recipe, keys, rule):
    trained = recipe.train(seed=0, folder=tiny / "ckpt", **TINY)
    model, meta = checkpoints.load(recipe.NAME)
    assert meta["text_input"] == rule and meta["modality"] == "text"
    assert meta["tokenizer"] == {"type": "bpe", "file": "bpe_8k.json"}
    stages = recipe.RECIPE["stages"]                    # one run per stage, the last stage's recipe saved
    assert meta["recipe"]["steps_done"] >= 1 and meta["recipe"]["runs"] == len(stages)
    assert meta["recipe"]["stage"] == len(stages) - 1 and meta["recipe"]["lr"] == stages[-1]["lr"]
    found = recipe.evaluate()
    assert set(found) == set(trained) and found["unk_rate_heldout_real"] == 0
    shipped = load_file(str(checkpoints.ASSETS / f"{recipe.NAME}.safetensors"))
    recipe.export(tiny / "ckpt")                       # the assets again, from the run's last checkpoint
    again = load_file(str(checkpoints.ASSETS / f"{recipe.NAME}.safetensors"))
    assert shipped.keys() == again.keys() and all(torch.equal(shipped[k], again[k]) for k in shipped)
    for k in COMMON + keys:
        assert isinstance(found[k], float), k
    assert 0 <= found["previous_token_score_best"] <= 1 and 0 <= found["induction_score_best"] <= 1
    # the shipped weights are untied copies: the output layer equals the token embedding
    assert torch.equal(model.lm_head.weight, model.embed.tok.weight)
    assert model.lm_head.weight.data_ptr() != model.embed.tok.weight.data_ptr()
    if "perplexity_ratio_vs_bigram" in keys:
        assert found["perplexity_ratio_vs_bigram"] == pytest.approx(
            found["perplexity_heldout_real"] / found["bigram_perplexity_heldout_real"], rel=1e-3)
        assert found["perplexity_heldout_real"] == pytest.approx(_perplexity_one_text_at_a_time(model, meta), rel=1e-4)


@torch.inference_mode()
def _perplexity_one_text_at_a_time(model, meta: dict) -> float:
    """exp of the mean −log p(token | the tokens before it) over the held-out sample evaluate reads (every
    recipe["eval_every"]-th held-out document, [BOS] doc [EOS], cut to the context), each text alone."""
    r = meta["recipe"]
    seqs = rtb.heldout_sample(rtb.encode_split(bpe.load(), "heldout"), r["eval_every"], r["context"], "bos")
    nll = sum(-float(F.log_softmax(model(torch.tensor([ids[:-1]]))[0], -1)[torch.arange(len(ids) - 1),
                                                                         torch.tensor(ids[1:])].sum())
              for ids in seqs)
    return math.exp(nll / sum(len(ids) - 1 for ids in seqs))


def test_general_gpts_last_stage_alternates_document_openings_and_windows(tiny):
    stage = {**general_gpt.RECIPE, **TINY, **general_gpt.RECIPE["stages"][-1], "seed": 0}
    ul = stage["unlikelihood"]
    assert ul["prefix"][1] + ul["new"] <= general_gpt.RECIPE["context"]   # an opening and its continuation fit
    next_batch = general_gpt.make_batches(bpe.load(), {"steps": 0}, stage)
    for step in range(0, 2 * ul["every"] * 3, ul["every"]):
        opening = next_batch(step)
        assert isinstance(opening, unlikelihood.Prefixes) and (opening.new, opening.weight) == (ul["new"], ul["weight"])
        assert opening.ids.shape == (TINY["batch"], ul["prefix"][0] + step // ul["every"])
        assert (opening.ids[:, 0] == bpe.BOS).all() and not (opening.ids == bpe.EOS).any()
        window = next_batch(step + 1)
        assert torch.is_tensor(window) and window.shape == (TINY["batch"], TINY["context"] + 1)
    assert torch.is_tensor(next_batch(-1))                  # the speed probe times a window


def tiny_run(folder, n_steps_before=0, elapsed=None):
    """resumable.run on a tiny decoder; with elapsed, a checkpoint of a run that used `elapsed` of 100 s."""
    model = resumable.tie(Transformer(general_gpt.config({**general_gpt.RECIPE, **TINY}, 50)))
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


def staged_run(folder, stage=None, elapsed=None):
    """resumable.run_stages over two stages of a tiny decoder, each 0.02 CPU min at 20 steps per CPU second (24
    steps); with stage and elapsed, a checkpoint of that stage's run having used `elapsed` of its 100 s.
    Returns (state, the stage recipes make_batches was called with, in order)."""
    recipe = {**general_gpt.RECIPE, **TINY, "stages": [dict(lr=1e-3, tag="first"), dict(lr=5e-4, tag="second")]}
    model = resumable.tie(Transformer(general_gpt.config(recipe, 50)))
    if stage is not None:
        state = {"steps": 5, "tokens": 640, "train_seconds": elapsed, "runs": 1, "run_budget_s": 100.0,
                 "run_elapsed_s": elapsed, "recipe": {**recipe, "stage": stage}}
        resumable.save_state("tiny", model, state, folder)
    seen = []

    def batches(state, stage_recipe):
        seen.append((stage_recipe["tag"], stage_recipe["lr"]))
        return lambda step: torch.randint(0, 50, (2, 9))
    return resumable.run_stages("tiny", model, batches, general_gpt.loss_fn, recipe, folder), seen


def test_stages_run_in_order_and_a_resumed_run_continues_the_stage_it_stopped_in(tiny, monkeypatch):
    monkeypatch.setattr(resumable, "steps_per_cpu_second", lambda *args: 20.0)
    state, seen = staged_run(tiny)                                   # from scratch: both stages
    assert [t for t, _ in seen] == ["first", "second"] and state["runs"] == 2 and state["steps"] == 48
    assert state["recipe"]["stage"] == 1 and state["recipe"]["lr"] == 5e-4
    monkeypatch.setenv("ATTENTION_LAB_RESUME", "1")
    state, seen = staged_run(tiny, stage=0, elapsed=99.5)            # stage 0 had 0.5 s left: 10 steps, then stage 1
    assert [t for t, _ in seen] == ["first", "second"] and state["steps"] == 5 + 10 + 24 and state["runs"] == 2
    state, seen = staged_run(tiny, stage=0, elapsed=100.0)           # stage 0 done: stage 1 alone
    assert [t for t, _ in seen] == ["second"] and state["steps"] == 5 + 24 and state["recipe"]["stage"] == 1
    state, seen = staged_run(tiny, stage=1, elapsed=100.0)           # the last stage done: a new run of it
    assert [t for t, _ in seen] == ["second"] and state["runs"] == 2


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
