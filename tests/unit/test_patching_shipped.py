"""Activation patching on the shipped coreference model and the command (model/analysis/patching.py,
model/analysis/direct_path.py, `python -m model.patch`): pieces aligned across the pair, the layer × position map
agreeing with single patched runs read by model.tasks.coreference.resolve, the direct-path parts summing to a head's
queries and keys, the score split summing exactly to the change with its query and key sides what patching q or k
alone does, and the command's keys and one-line errors."""
import json

import numpy as np
import pytest
import torch

from model import checkpoints
from model.analysis import patching as ap
from model.analysis.direct_path import head_inputs
from model.data import course_world as corpus
from model.data import text_input
from model.engine.capture import capturing
from model.engine.patching import Patch, patching
from model.tasks.coreference import resolve
from tests.unit.patching_models import _np, _run, _tiny

TROPHY = next(p for p in corpus.MINIMAL_PAIRS if p[0] == "big / small")


def _enc(words: list[list[str]]) -> text_input.TextEncoding:
    """A TextEncoding by hand: one list of pieces per word, [CLS] and [SEP] around."""
    words = [["[CLS]"]] + words + [["[SEP]"]]
    tokens = [p for w in words for p in w]
    groups, at = [], 0
    for w in words:
        groups.append(tuple(range(at, at + len(w))))
        at += len(w)
    return text_input.TextEncoding(list(range(len(tokens))), tokens, [False] * len(tokens), tuple(groups),
                                   tuple("".join(w) for w in words))


def test_alignment_piece_by_piece_or_by_words_around_the_change():
    a = _enc([["the"], ["cup"], ["is"], ["too"], ["sm", "all"], ["."]])
    b = _enc([["the"], ["cup"], ["is"], ["too"], ["big"], ["."]])
    assert ap.align(a, b).tolist() == [0, 1, 2, 3, 4, -1, 7, 8]             # the changed word has 2 and 1 pieces
    same = _enc([["the"], ["cup"], ["is"], ["too"], ["tin", "y"], ["."]])
    assert ap.align(a, same).tolist() == list(range(9))                     # as many pieces: piece by piece
    longer = _enc([["the"], ["cup"], ["was"], ["far"], ["too"], ["b", "ig"], ["."]])
    src = ap.align(a, longer)
    assert src.tolist() == [0, 1, 2, -1, -1, -1, -1, -1, 7, 8]              # start and end shared, the middle not
    assert ap.word_source(a, longer, src).tolist() == [0, 1, 2, -1, -1, -1, -1, 6, 7]
    with pytest.raises(ValueError, match="cannot be aligned: they have 9 and 5 pieces"):
        ap.align(a, _enc([["no"], ["such"], ["words"]]))


@pytest.fixture(scope="module")
def coref():
    model, meta = checkpoints.load("coref_encoder")
    return model, text_input.tokenizer_of(meta), tuple(meta["coref_head"]), meta.get("coref_candidates", "all")


def _single(model, pm, layer: int, t: int) -> np.ndarray:
    """(L, H, N, N) piece attention of B with the one state (layer, t) of A patched in, run alone."""
    pair = pm.pair
    with torch.inference_mode():
        run_a = _run(model, torch.tensor([pair.a.ids]))
        where = torch.zeros(len(pair.b.ids), dtype=torch.bool)
        where[t] = True
        value = run_a.hidden[layer][:, torch.as_tensor(np.maximum(pair.source, 0))]
        out = _run(model, torch.tensor([pair.b.ids]), {model.encoder: {layer: Patch(value, where)}})
    return torch.stack([i.weights[0] for i in out.intermediates]).numpy()


def test_the_map_agrees_with_single_patched_runs_read_by_resolve(coref):
    model, tok, head, rule = coref
    _, text_a, text_b, _, ante_a, ante_b = TROPHY
    pm = ap.patch_map(model, tok, text_a, text_b, head, rule, batch=7)         # several forwards
    words = pm.pair.b.word_texts
    assert (words[pm.answer_b], pm.pair.a.word_texts[pm.answer_a_own]) == (ante_b, ante_a)
    plain = resolve(model, tok, text_b, head, candidates=rule)["pronouns"][0]
    assert plain["antecedent_index"] == pm.answer_b
    np.testing.assert_allclose([w for _, w in plain["top"][:1]], [pm.row_b[pm.answer_b]], atol=1e-4)
    assert pm.flips.any()
    flipped = [tuple(c) for c in np.argwhere(pm.flips)]
    for layer, t in flipped[:2] + [(0, 1), (head[0], 3)]:
        got = resolve(model, tok, text_b, head, weights=_single(model, pm, layer, t), candidates=rule)["pronouns"][0]
        assert got["antecedent_index"] == pm.answers[layer, t]
        assert got["top"][0][1] == pytest.approx(pm.rows[layer, t, got["antecedent_index"]], abs=1e-4)
    assert (pm.effect[head[0] + 1:] == 0).all() and not pm.flips[head[0] + 1:].any()   # later states cannot move it
    assert pm.effect[0, 1] == 0                                             # "The": the same embedding in both


def test_later_states_cannot_move_the_head_and_the_map_says_so():
    model = _tiny("encoder", "pre", n_layers=3)
    run_a, run_b = _run(model, torch.arange(4, 12)[None]), _run(model, torch.arange(20, 28)[None])
    with_later = _run(model, torch.arange(20, 28)[None], {model.encoder: {2: Patch(run_a.hidden[2])}})
    assert torch.equal(with_later.intermediates[1].weights, run_b.intermediates[1].weights)


@pytest.mark.parametrize("norm", ["post", "pre"])
def test_direct_path_parts_sum_to_the_heads_queries_and_keys(norm):
    model = _tiny("encoder", norm)
    ids = np.arange(4, 13)
    parts = head_inputs(model, ids, 2, 1)
    assert parts.labels[0] == "embeddings" and parts.labels[-1] == "biases" and "L1 H3" in parts.labels
    assert "L1 FFN" in parts.labels and len(parts.labels) == 1 + 2 * (4 + 1) + 1
    with torch.inference_mode(), capturing("weights", "q", "k"):
        inter = model.encode(torch.as_tensor(ids)[None]).intermediates[2]
    np.testing.assert_allclose(parts.q.sum(0), _np(inter.q[0, 1]), atol=1e-4)
    np.testing.assert_allclose(parts.k.sum(0), _np(inter.k[0, 1]), atol=1e-4)


def _word_scores(model, ids, head, pronoun, cands, edits=None) -> np.ndarray:
    """Mean of the captured piece scores of the pronoun's pieces and each candidate's pieces."""
    layer, h = head
    with torch.inference_mode(), patching(edits or {}), capturing("weights", "q", "k", "scores"):
        s = model.encode(torch.tensor([ids])).intermediates[layer].scores[0, h].double().numpy()
    return np.array([s[np.ix_(list(pronoun), list(c))].mean() for c in cands])


def test_the_score_split_sums_exactly_and_its_sides_are_what_patching_q_or_k_does(coref):
    model, tok, head, _ = coref
    _, text_a, text_b, *_ = TROPHY
    pair = ap.read_pair(model, tok, text_a, text_b)
    split = ap.score_split(model, pair, head)
    np.testing.assert_allclose(split.query_side + split.key_side + split.interaction, split.change, atol=1e-12)
    np.testing.assert_allclose(split.query_parts.sum(0), split.query_side, atol=1e-9)
    np.testing.assert_allclose(split.key_parts.sum(0), split.key_side, atol=1e-9)
    layer, h = head
    pron_b = pair.b.words[pair.pronoun]
    cands_b = [pair.b.words[j] for j in split.candidates]
    cands_a = [pair.a.words[pair.words[j]] for j in split.candidates]
    np.testing.assert_allclose(split.score_b, _word_scores(model, pair.b.ids, head, pron_b, cands_b), atol=2e-4)
    np.testing.assert_allclose(split.score_a, _word_scores(model, pair.a.ids, head, pair.a.words[pair.pronoun_a],
                                                           cands_a), atol=2e-4)
    with torch.inference_mode(), capturing("weights", "q", "k"):
        inter_a = model.encode(torch.tensor([pair.a.ids])).intermediates[layer]
    attn = model.encoder.layers[layer].self_attn
    src = torch.as_tensor(np.maximum(pair.source, 0))
    q_only = {attn: {("q", h): Patch(inter_a.q[:, h][:, src], torch.as_tensor(pair.source >= 0))}}
    k_only = {attn: {("k", h): Patch(inter_a.k[:, h][:, src], torch.as_tensor(pair.source >= 0))}}
    np.testing.assert_allclose(_word_scores(model, pair.b.ids, head, pron_b, cands_b, q_only) - split.score_b,
                               split.query_side, atol=2e-4)
    np.testing.assert_allclose(_word_scores(model, pair.b.ids, head, pron_b, cands_b, k_only) - split.score_b,
                               split.key_side, atol=2e-4)


def test_a_pair_that_cannot_be_patched_says_why(coref):
    model, tok, head, rule = coref
    with pytest.raises(ValueError, match="both texts need a pronoun"):
        ap.patch_map(model, tok, "The cat sat on the mat.", "The dog sat on the mat.", head, rule)
    with pytest.raises(ValueError, match="cannot be aligned"):
        ap.patch_map(model, tok, "It rained.", "Yesterday afternoon we saw it snow heavily in town", head, rule)


# ---- the command --------------------------------------------------------------------------------------------------

def _command(capsys, *argv):
    from model.patch import main
    try:
        main(list(argv))
        code = 0
    except SystemExit as e:
        code = e.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_command_prints_the_map_with_the_promised_keys_and_shapes(capsys, coref):
    model, tok, head, rule = coref
    _, text_a, text_b, *_ = TROPHY
    code, out, err = _command(capsys, text_a, text_b, "--model", "coref_encoder", "--json")
    assert code == 0 and err == ""
    got = json.loads(out)
    assert list(got) == ["model", "tokens_a", "tokens_b", "pronoun", "candidates", "effect", "answer_flips"]
    pm = ap.patch_map(model, tok, text_a, text_b, head, rule)
    assert got["model"] == "coref_encoder" and got["pronoun"] == "it" and "trophy" in got["candidates"]
    assert got["tokens_b"] == pm.pair.b.tokens and len(got["effect"]) == model.config.n_layers
    assert all(len(row) == len(got["tokens_b"]) for row in got["effect"] + got["answer_flips"])
    assert np.asarray(got["answer_flips"]).tolist() == pm.flips.tolist()
    np.testing.assert_allclose(np.asarray(got["effect"], dtype=float), pm.effect, atol=1e-6)


@pytest.mark.parametrize("argv,message", [
    (["a it", "b it", "--model", "general_gpt"], "error: general_gpt has no coreference head; models with one: "),
    (["a it", "b it", "--model", "nope"], "error: no model 'nope'; models with a coreference head: "),
    (["The cat sat.", "The dog sat.", "--model", "coref_encoder"], "error: both texts need a pronoun"),
    (["It rained.", "Yesterday afternoon we saw it snow heavily in town"], "error: the two texts cannot be aligned"),
    (["only one text"], "error: the following arguments are required: text_b (see --help)"),
])
def test_the_command_fails_in_one_line_with_status_2(capsys, argv, message):
    code, out, err = _command(capsys, *argv)
    assert code == 2 and out == "" and err.startswith(message) and err.count("\n") == 1
