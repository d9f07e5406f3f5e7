"""Fine-tuning heads on tiny random encoders: their shapes, padding, what each run trains, span decoding against a
brute-force search, SQuAD scoring on known answers, the attention-change measure on known rows, and checkpoint
resume."""
import itertools

import numpy as np
import pytest
import torch

from model.analysis import attention_change
from model.analysis.finetune_run import sigmoid
from model.data.bpe import CLS, PAD, SEP
from model.engine.config import ModelConfig
from model.engine.transformer import Transformer
from model.tasks import spans
from model.tasks.heads import HeadedEncoder, n_outputs, pad_batch
from model.training import finetune


def encoder(kind: str = "encoder", seed: int = 0) -> Transformer:
    torch.manual_seed(seed)
    return Transformer(ModelConfig(vocab_size=40, d_model=16, n_heads=2, n_layers=2, d_ff=32, max_len=24,
                                   pos_encoding="learned", norm="pre", kind=kind)).eval()


IDS = pad_batch([[CLS, 9, 10, 11, SEP], [CLS, 12, SEP]])              # (2, 5), the second padded


@pytest.mark.parametrize("kind,n_out,shape", [("cls", 5, (2, 5)), ("binary", 1, (2, 1)), ("tag", 7, (2, 5, 7)),
                                              ("span", 2, (2, 5, 2))])
def test_each_head_gives_logits_of_its_shape(kind, n_out, shape):
    assert HeadedEncoder(encoder(), kind, n_out)(IDS).shape == shape


def test_heads_refuse_what_they_cannot_be():
    with pytest.raises(ValueError, match="head kind must be one of"):
        HeadedEncoder(encoder(), "pairs", 2)
    with pytest.raises(ValueError, match="needs an encoder"):
        HeadedEncoder(encoder("decoder"), "cls", 2)
    with pytest.raises(ValueError, match="2 outputs"):
        HeadedEncoder(encoder(), "span", 3)
    with pytest.raises(ValueError, match="a binary head has 1 output"):
        HeadedEncoder(encoder(), "binary", 2)


def test_a_binary_head_is_one_number_from_cls_trained_with_binary_cross_entropy():
    """The textbook's 12.6.2 classifier: z = w·h_[CLS] + b, Pr(y = 1) = σ(z), loss −[y log σ(z) + (1 − y) log(1 −
    σ(z))], written out here in numpy from the encoder's own [CLS] state."""
    model = HeadedEncoder(encoder(), "binary", 1).eval()
    torch.nn.init.normal_(model.head.weight, std=0.5)
    torch.nn.init.constant_(model.head.bias, 0.3)
    targets = torch.tensor([1, 0])
    with torch.no_grad():
        h = model.hidden(IDS)[:, 0].double().numpy()                     # (B, C): the [CLS] states
        loss = float(finetune.loss_of(model, IDS, targets, frozen=False))
        z_model = model(IDS)[:, 0].double().numpy()
    w, b = model.head.weight.detach().double().numpy()[0], float(model.head.bias.detach())
    z = h @ w + b                                                           # (B,)
    assert np.allclose(z_model, z, atol=1e-6)
    p = 1 / (1 + np.exp(-z))
    y = targets.numpy()
    assert loss == pytest.approx(float(np.mean(-(y * np.log(p) + (1 - y) * np.log(1 - p)))), abs=1e-5)
    assert np.allclose(sigmoid(z), p) and sigmoid(800.0) == 1.0 and sigmoid(-800.0) == 0.0
    assert n_outputs("binary", ("noun", "verb")) == 1 and n_outputs("cls", ("a", "b", "c")) == 3


def test_a_binary_task_trains_and_predicts_one_logit_per_example(tmp_path):
    task = tiny_task("binary")
    task.score = lambda m, xs: {"acc": float(np.mean([int(r[0] > 0) == e["target"]
                                                      for r, e in zip(finetune.predict(m, xs), xs)]))}
    models, curves = finetune.run(task, encoder(), dict(RECIPE), tmp_path)
    assert [tuple(r.shape) for r in finetune.predict(models["full"], task.val)] == [(1,)] * len(task.val)
    assert models["frozen"].head.out_features == 1 and curves["full"][-1][0] == RECIPE["steps"]


def test_padding_does_not_change_a_texts_logits():
    model = HeadedEncoder(encoder(), "tag", 4).eval()
    alone = model(torch.tensor([[CLS, 12, SEP]]))[0]
    padded = model(IDS)[1, :3]
    assert torch.allclose(alone, padded, atol=1e-5)


def test_frozen_trains_the_head_only_and_full_every_weight():
    model = HeadedEncoder(encoder(), "cls", 3)
    names = {id(p): n for n, p in model.named_parameters()}
    assert {names[id(p)] for p in model.trainable(frozen=True)} == {"head.weight", "head.bias"}
    assert {names[id(p)] for p in model.trainable(frozen=False)} == set(names.values())
    kept = HeadedEncoder(encoder(), "cls", 3, train_embeddings=False)
    names = {id(p): n for n, p in kept.named_parameters()}
    assert {names[id(p)] for p in kept.trainable(frozen=False)} == set(names.values()) - {"encoder.embed.tok.weight"}


def brute_force(start, end, allowed, max_len):
    best, found = -np.inf, None
    for s, e in itertools.product(range(len(start)), repeat=2):
        if s <= e < s + max_len and allowed[s] and allowed[e] and start[s] + end[e] > best:
            best, found = start[s] + end[e], (s, e)
    return found


@pytest.mark.parametrize("seed", range(20))
def test_best_span_is_the_brute_force_best_inside_the_passage(seed):
    rng = np.random.default_rng(seed)
    T = int(rng.integers(3, 20))
    start, end = rng.normal(size=T), rng.normal(size=T)
    allowed = np.zeros(T, bool)
    lo = int(rng.integers(0, T - 1))
    allowed[lo:int(rng.integers(lo + 1, T + 1))] = True
    s, e = spans.best_span(start, end, allowed, max_len=4)
    assert s <= e and allowed[s] and allowed[e] and e - s < 4
    assert (s, e) == brute_force(start, end, allowed, 4)


def test_best_span_never_ends_before_it_starts():
    start = np.array([0.0, 0.0, 9.0])                     # the best start comes after the best end
    end = np.array([9.0, 0.0, 0.0])
    s, e = spans.best_span(start, end, np.ones(3, bool))
    assert s <= e and start[s] + end[e] == 9.0
    with pytest.raises(ValueError, match="no token of the passage"):
        spans.best_span(start, end, np.zeros(3, bool))


def test_squad_scores_of_known_answers():
    assert spans.exact_match("The Cat!", "cat") == 1.0
    assert spans.exact_match("a cat", "dog") == 0.0
    assert spans.token_f1("red big cat", "big cat sat") == pytest.approx(2 / 3)      # P = R = 2/3
    assert spans.token_f1("was too tired", "too tired") == pytest.approx(0.8)       # P 2/3, R 1
    assert spans.token_f1("dog", "cat") == 0.0


def test_attention_change_is_zero_for_one_model_and_one_for_disjoint_rows():
    base = encoder()
    ids, lengths = IDS, torch.tensor([5, 3])
    assert np.allclose(attention_change.measure(base, base, [(ids, lengths)]), 0.0)
    a = np.zeros((1, 1, 1, 2, 2))
    b = np.zeros((1, 1, 1, 2, 2))
    a[..., 0], b[..., 1] = 1.0, 1.0                         # every row: all weight on key 0 vs on key 1
    assert np.allclose(attention_change.head_change(a, b, np.array([2])), 1.0)
    b[..., 0, :] = a[..., 0, :]                             # the first query now agrees: mean of 0 and 1
    assert np.allclose(attention_change.head_change(a, b, np.array([2])), 0.5)


def tiny_task(kind: str = "cls") -> finetune.Task:
    rng = np.random.default_rng(0)
    items = [{"ids": [CLS] + rng.integers(7, 40, 5).tolist() + [SEP], "target": int(i % 2)} for i in range(16)]
    return finetune.Task("tiny", kind, ("a", "b"), items, items[:4],
                         lambda m, xs: {"acc": float(np.mean([int(np.argmax(r)) == e["target"]
                                                              for r, e in zip(finetune.predict(m, xs), xs)]))})


RECIPE = dict(seed=0, steps=6, batch=4, lr=1e-3, lr_frozen=1e-2, betas=(0.9, 0.98), weight_decay=0.0, eval_every=3,
              checkpoint_min=0.0, train_embeddings=True)


W_Q = "encoder.layers.0.self_attn.w_q.weight"


def test_frozen_run_leaves_every_encoder_weight_and_the_base_model_untouched(tmp_path):
    base = encoder()
    before = {k: v.clone() for k, v in base.state_dict().items()}
    models, curves = finetune.run(tiny_task(), base, dict(RECIPE), tmp_path)
    for k, v in base.state_dict().items():
        assert torch.equal(v, before[k]), k
    frozen, full = models["frozen"].encoder.state_dict(), models["full"].encoder.state_dict()
    for k, v in frozen.items():
        assert torch.equal(v, before[k]), k
    assert not torch.equal(full[W_Q], before[W_Q])                      # full fine-tuning did train the layers
    assert not torch.equal(full["embed.tok.weight"], before["embed.tok.weight"])             # and the embeddings
    assert [p[0] for p in curves["full"]] == [0, 3, 6] and curves["full"][0][1] is None


class Interrupted(Exception):
    pass


def test_a_stopped_and_resumed_run_ends_where_an_unbroken_one_does(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTENTION_LAB_RESUME", "1")
    base = encoder()
    whole, halves = HeadedEncoder(base, "cls", 2), HeadedEncoder(base, "cls", 2)
    halves.load_state_dict(whole.state_dict())
    finetune.train(whole, tiny_task(), dict(RECIPE), False, tmp_path / "a")
    task, calls = tiny_task(), []
    score = task.score

    def stop_at_step_3(model, items):
        calls.append(1)
        if len(calls) == 2:                                 # the first point is step 0, the second step 3
            raise Interrupted
        return score(model, items)
    task.score = stop_at_step_3
    with pytest.raises(Interrupted):
        finetune.train(halves, task, dict(RECIPE), False, tmp_path / "b")
    resumed = HeadedEncoder(base, "cls", 2)                 # a new process: weights from the checkpoint
    task.score = score
    curve = finetune.train(resumed, task, dict(RECIPE), False, tmp_path / "b")
    assert curve[-1][0] == 6
    for k, v in whole.state_dict().items():
        assert torch.allclose(v, resumed.state_dict()[k], atol=1e-5), k


def test_batches_pad_texts_and_tag_targets():
    ids, targets = finetune.collate("tag", [{"ids": [CLS, 9, SEP], "target": [-100, 3, -100]},
                                            {"ids": [CLS, SEP], "target": [-100, -100]}])
    assert ids.tolist() == [[CLS, 9, SEP], [CLS, SEP, PAD]]
    assert targets.tolist() == [[-100, 3, -100], [-100, -100, -100]]
