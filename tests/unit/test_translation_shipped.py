"""Claims about the shipped translator (assets/translator.*): its held-out figures, greedy = beam
width 1 on real sentences, and the page's default example."""
import pytest
import torch

from model import checkpoints
from model.data import translation_corpus as corpus
from model.tasks import translation as translate
from model.training.recipes import translator


@pytest.fixture(scope="module")
def shipped():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield translator.load()
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def figures(shipped):
    return translator.measure(*shipped)


def test_shipped_translator_meets_the_heldout_targets(figures):
    assert figures["heldout_n"] == len(corpus.heldout_pairs()) == 520
    assert figures["exact_match_heldout"] >= 0.90
    assert figures["bleu_heldout"] >= 0.90
    assert figures["exact_match_heldout_templates"] >= 0.8 and figures["exact_match_heldout_combinations"] >= 0.9


def test_shipped_meta_records_the_figures_it_measures(figures):
    meta = checkpoints.read_meta("translator")
    assert meta["modality"] == "translation" and meta["config"]["kind"] == "encoder_decoder"
    assert meta["config"]["norm"] == "post"
    for key in ("exact_match_heldout", "bleu_heldout"):
        assert meta["metrics"][key] == pytest.approx(figures[key], abs=0.01)


def test_shipped_greedy_equals_beam_width_one_and_translates_the_default_example(shipped):
    model, src_tok, tgt_tok = shipped
    for pair in corpus.examples()[:4]:
        src = translate.source_ids(src_tok, pair.en)
        assert translate.beam_search(model, src, width=1)[0].ids == translate.greedy(model, src).ids
    run = translate.run(model, src_tok, tgt_tok, "the teacher likes the restaurant near the station .")
    assert run.output == "老师喜欢车站附近的餐厅。"
    # the step writing 车 (station) attends to "station" more than to "restaurant" in the last layer
    w = run.cross_weights[-1].mean(0)
    row = run.written.index("车")
    assert w[row, run.src_tokens.index("station")] > w[row, run.src_tokens.index("restaurant")]
