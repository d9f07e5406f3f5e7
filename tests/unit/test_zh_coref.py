"""The zh_coref recipe end to end on a tiny budget: a tiny randomly initialised Chinese encoder is shipped as
zh_encoder in a temporary assets folder, the Chinese corpus is replaced by a handful of documents, zh_coref trains
about a second, writes assets/zh_coref.* that model.checkpoints.load reads back, and `model.evaluate` reports its
figures, the Chinese pronoun set's among them; coref_encoder's shared code reads Chinese words and pronouns."""
import pytest
import torch

from model import checkpoints, evaluate
from model.data import course_world_zh as course
from model.data import text_input, zh_text, zh_tokenizer
from model.data.bpe import MASK, PAD
from model.data.course_samples import Ref, Sample
from model.data.real_text import Corpus, Document
from model.engine.transformer import Transformer
from model.tasks import coref_realtext_zh
from model.training import resumable
from model.training.recipes import _real_text_lm as lm
from model.training.recipes import coref_encoder, zh_coref

TRAIN = ["我有一只猫。它每天都在窗台上睡觉，醒了就去厨房找吃的。", "今天天气很好，我们去公园散步，看见很多人在放风筝。",
         "这家店的面条很好吃，价格也不贵，下次还会再来。", "安装软件包之前，请先更新软件源列表，然后再运行安装命令。"]
HELDOUT = ["小猫没有过马路，因为它太累了。", "他把书放进了书包，然后去学校上课。"]
TINY = dict(d_model=16, n_heads=2, n_layers=2, d_ff=32, context=128)   # context: zh_encoder's held-out sample fits


def tiny_corpus() -> Corpus:
    train = [Document(f"{t}（{i}）", "reviews", "zh") for i in range(10) for t in TRAIN]
    return Corpus(train, [Document(t, "reviews", "zh") for t in HELDOUT * 4])


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    """A temporary assets folder holding a tiny random zh_encoder, a tiny Chinese corpus and a budget of about a
    second."""
    monkeypatch.setattr(zh_text, "corpus", tiny_corpus)
    monkeypatch.setattr(checkpoints, "ASSETS", tmp_path / "assets")
    monkeypatch.setenv("ATTENTION_LAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("ATTENTION_LAB_BUDGET_MIN", "0.02")
    monkeypatch.delenv("ATTENTION_LAB_RESUME", raising=False)
    torch.manual_seed(0)
    tok = zh_tokenizer.load()
    encoder = resumable.tie(Transformer(lm.config(TINY, len(tok), "encoder")))
    checkpoints.save("zh_encoder", resumable.untied(encoder), {
        "arch": "model.engine.transformer:Transformer", "config": encoder.config.to_dict(),
        "tokenizer": tok.to_dict(), "text_input": "cls_sep", "modality": "text", "recipe": {"steps_done": 0}})
    return tmp_path


def test_a_tiny_run_from_a_tiny_chinese_encoder_ships_a_model_that_loads_and_evaluates(tiny):
    trained = zh_coref.train(seed=0, folder=tiny / "ckpt", samples=300, eval_pairs=6, batch=4, real_batch=2)
    model, meta = checkpoints.load("zh_coref")
    assert meta["kind"] == "coref_encoder" and meta["text_input"] == "cls_sep"
    assert meta["tokenizer"] == {"type": "bpe", "file": "bpe_zh_8k.json"}
    assert meta["recipe"]["init"] == "zh_encoder" and meta["recipe"]["steps_done"] >= 1
    layer, head = meta["coref_head"]
    assert 0 <= layer < TINY["n_layers"] and 0 <= head < TINY["n_heads"]
    found = evaluate.evaluate_all(["zh_coref"])
    assert list(found) == ["zh_coref"] and found["zh_coref"] == trained
    n_test = sum(s.split == "test" for s in coref_realtext_zh.load())
    assert trained["coref_realtext_n_test"] == n_test
    for key in ("coref_acc_realtext_test_cued", "coref_baseline_nearest_noun_realtext_test_cued",
                "coref_acc_heldout_pairs", "coref_acc_heldout_frames", "coref_acc_heldout_gender",
                "coref_acc_heldout_number", "coref_acc_heldout_structure", "coref_acc_classics",
                "mlm_acc_heldout_real"):
        assert isinstance(trained[key], float) and 0 <= trained[key] <= 1, key
    # the set's baselines do not depend on the model: the figures the set's own reader counts
    cued = coref_realtext_zh.baselines([s for s in coref_realtext_zh.load() if s.split == "test"])
    assert trained["coref_baseline_nearest_noun_realtext_test_cued"] == pytest.approx(cued["nearest_noun"]["cued"],
                                                                                       abs=1e-4)
    # a schema pronoun points at the first or the nearest of two nouns, each side of a pair once
    assert trained["baseline_first_noun"] + trained["baseline_nearest_noun"] == pytest.approx(1.0)


def test_shared_encoding_reads_chinese_words_spares_chinese_pronouns_and_aims_the_cloze_at_the_antecedent():
    tok = zh_tokenizer.load()
    text = "奖杯放不进箱子，因为它太大了。"          # 奖杯 / 放不进 / 箱子 / ， / 因为 / 它 / 太大 / 了 / 。
    sample = Sample(text, (Ref(5, 0, "它", "奖杯"),), pair=("奖杯", "箱子"))
    ((ids, refs, spared),) = coref_encoder.encode_samples(tok, [sample], course.words, course.PRONOUNS)
    enc = text_input.encode(tok, text, "cls_sep")
    pronoun_pieces = enc.words[6]                           # word 5, after [CLS]
    assert enc.word_texts[6] == "它" and spared == list(pronoun_pieces)
    assert refs == [(pronoun_pieces[0], tok.encode("奖").ids[0])]
    batch = coref_encoder.collate([(ids, refs, spared)] * 64, len(tok), torch.Generator().manual_seed(0), 0.5)
    chosen = batch["labels"] != -100
    assert chosen.any() and not chosen[:, pronoun_pieces].any()
    assert (batch["inputs"][chosen] == MASK).any() and not (batch["inputs"] == PAD).any()
