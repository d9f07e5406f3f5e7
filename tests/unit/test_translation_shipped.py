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


def test_shipped_meta_describes_an_encoder_decoder():
    meta = checkpoints.read_meta("translator")
    assert meta["modality"] == "translation" and meta["config"]["kind"] == "encoder_decoder"
    assert meta["config"]["norm"] == "post"


def test_exact_match_is_the_share_of_sentences_translated_letter_for_letter(shipped):
    """On every fifth held-out pair: the batched measure's exact match and its template / combination split
    equal a count of one-sentence-at-a-time greedy translations that equal the reference."""
    model, src_tok, tgt_tok = shipped
    pairs = corpus.heldout_pairs()[::5]
    found = translator.measure(model, src_tok, tgt_tok, pairs)
    right = [translate.zh_text(tgt_tok, translate.greedy(model, translate.source_ids(src_tok, p.en),
                                                         capture=False).ids) == p.zh for p in pairs]
    templates = [p.template in corpus.HELDOUT_TEMPLATES for p in pairs]
    assert found["heldout_n"] == len(pairs) == 104
    assert found["exact_match_heldout"] == pytest.approx(sum(right) / len(pairs), abs=1e-4)
    assert found["exact_match_heldout_templates"] == pytest.approx(
        sum(r for r, t in zip(right, templates) if t) / sum(templates), abs=1e-4)
    assert found["exact_match_heldout_combinations"] == pytest.approx(
        sum(r for r, t in zip(right, templates) if not t) / (len(pairs) - sum(templates)), abs=1e-4)


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
