"""Activation patching (model/engine/patching.py, model/analysis/patching.py, model/analysis/direct_path.py,
`python -m model.patch`): a patched state is exactly what the numpy reference computes with that state replaced, on
every attention path; patching every state of A into B reproduces A and patching nothing reproduces B; the layer ×
position map agrees with single patched runs read by model.tasks.coreference.resolve; the score split sums exactly
to the change and its query and key sides are what patching q or k alone does."""
import json

import numpy as np
import pytest
import torch

from model import checkpoints
from model import reference as R
from model.analysis import patching as ap
from model.analysis.direct_path import head_inputs
from model.data import course_world as corpus
from model.data import text_input
from model.engine.ablation import ablating
from model.engine.attention import MultiHeadAttention
from model.engine.capture import capturing
from model.engine.config import ModelConfig
from model.engine.patching import Patch, patching
from model.engine.sparse import SlidingWindow
from model.engine.transformer import Transformer
from model.tasks.coreference import resolve

PATHS = ["fast", "kernel", "explicit", "into"]        # SDPA, a kernel, capturing(q, k, …), capturing() (in place)
TROPHY = next(p for p in corpus.MINIMAL_PAIRS if p[0] == "big / small")


def _np(t):
    return t.detach().double().numpy()


def _mha(path: str, C=16, H=4) -> MultiHeadAttention:
    torch.manual_seed(0)
    m = MultiHeadAttention(C, H, kernel=SlidingWindow(width=64) if path == "kernel" else None).eval()
    for p in m.parameters():                                   # unit-scale weights: patches move things visibly
        torch.nn.init.normal_(p, std=0.5)
    return m


def _call(m, x, path: str):
    """(out, Intermediates or None) of m on x by the path's rule."""
    with torch.inference_mode():
        if path in ("fast", "kernel"):
            return m(x)
        with capturing(*(("weights", "q", "k", "v") if path == "explicit" else ())):
            return m(x)


def _ref(m, x):
    """Q, K, V (T, C) and W_O, b_O of the numpy reference for one sequence."""
    x = _np(x[0])
    return (x @ _np(m.w_q.weight).T + _np(m.w_q.bias), x @ _np(m.w_k.weight).T + _np(m.w_k.bias),
            x @ _np(m.w_v.weight).T + _np(m.w_v.bias), _np(m.w_o.weight).T, _np(m.w_o.bias))


def _ref_out(Q, K, V, W_O, b_O, H):
    d = Q.shape[1] // H
    z, w = zip(*(R.attention(Q[:, h * d:(h + 1) * d], K[:, h * d:(h + 1) * d], V[:, h * d:(h + 1) * d])
                 for h in range(H)))
    return np.concatenate(z, -1) @ W_O + b_O, np.stack(w), list(z)


# ---- the engine ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", PATHS)
def test_a_head_output_patch_equals_the_reference_with_that_heads_z_replaced(path):
    m = _mha(path)
    xa, xb = torch.randn(1, 6, 16), torch.randn(1, 6, 16)
    za = _ref_out(*_ref(m, xa), 4)[2]
    where = torch.tensor([False, True, False, True, True, False])
    with patching({m: {("z", 2): Patch(torch.as_tensor(za[2], dtype=torch.float32)[None], where)}}):
        out, _ = _call(m, xb, path)
    Q, K, V, W_O, b_O = _ref(m, xb)
    _, _, zb = _ref_out(Q, K, V, W_O, b_O, 4)
    zb[2] = np.where(where.numpy()[:, None], za[2], zb[2])                 # by hand: head 2's z replaced there
    np.testing.assert_allclose(_np(out[0]), np.concatenate(zb, -1) @ W_O + b_O, atol=1e-5)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("site", ["q", "k"])
def test_q_and_k_patches_give_the_weights_the_reference_computes_from_them(path, site):
    m = _mha(path)
    xa, xb = torch.randn(1, 7, 16), torch.randn(1, 7, 16)
    Qa, Ka = _ref(m, xa)[:2]
    Q, K, V, W_O, b_O = _ref(m, xb)
    h, d, pos = 1, 4, [0, 4, 5]
    cols = slice(h * d, (h + 1) * d)
    source = Qa if site == "q" else Ka
    where = torch.zeros(7, dtype=torch.bool)
    where[pos] = True
    with patching({m: {(site, h): Patch(torch.as_tensor(source[:, cols], dtype=torch.float32)[None], where)}}):
        out, inter = _call(m, xb, path)
    target = Q if site == "q" else K
    target[pos, cols] = source[pos, cols]
    ref_out, ref_w, _ = _ref_out(Q, K, V, W_O, b_O, 4)
    np.testing.assert_allclose(_np(out[0]), ref_out, atol=1e-5)
    if inter is not None:
        np.testing.assert_allclose(_np(inter.weights[0]), ref_w, atol=1e-6)
        if inter.q is not None:                                            # what capture keeps is the patched q, k
            np.testing.assert_allclose(_np(getattr(inter, site)[0, h]), target[:, cols], atol=1e-5)


def test_a_z_patch_applies_after_an_ablation_of_the_same_head():
    m = _mha("explicit")
    x = torch.randn(1, 5, 16)
    value = torch.randn(1, 5, 4)
    where = torch.tensor([True, False, False, True, False])
    with ablating({m: {0: None}}), patching({m: {("z", 0): Patch(value, where)}}):
        out, _ = _call(m, x, "explicit")
    Q, K, V, W_O, b_O = _ref(m, x)
    _, _, z = _ref_out(Q, K, V, W_O, b_O, 4)
    z[0] = np.where(where.numpy()[:, None], _np(value[0]), 0.0)             # zeros, and the patch where asked
    np.testing.assert_allclose(_np(out[0]), np.concatenate(z, -1) @ W_O + b_O, atol=1e-5)


def _tiny(kind="encoder", norm="post", n_layers=3) -> Transformer:
    torch.manual_seed(3)
    model = Transformer(ModelConfig(vocab_size=50, d_model=32, n_heads=4, n_layers=n_layers, d_ff=64, max_len=32,
                                    kind=kind, norm=norm)).eval()
    for p in model.parameters():
        torch.nn.init.normal_(p, std=0.3)
    return model


def _run(model, ids, edits=None, capture=True):
    with torch.inference_mode(), patching(edits or {}):
        if not capture:
            return model.encode(ids)
        with capturing():
            return model.encode(ids)


@pytest.mark.parametrize("kind", ["encoder", "decoder"])
@pytest.mark.parametrize("capture", [False, True])
def test_patching_every_state_of_a_into_b_reproduces_a_and_patching_nothing_reproduces_b(kind, capture):
    model = _tiny(kind)
    a, b = torch.arange(4, 14)[None], torch.arange(20, 30)[None]
    states = _run(model, a).hidden
    run_a, run_b = _run(model, a, capture=capture), _run(model, b, capture=capture)    # the same path as the patched
    every = {model.encoder: {layer: Patch(h) for layer, h in enumerate(states)}}
    for edits, expected in ((every, _run(model, a)), ({model.encoder: {0: Patch(states[0])}}, run_a), ({}, run_b),
                            ({model.encoder: {1: Patch(states[1], torch.zeros(10, dtype=torch.bool))}}, run_b)):
        got = _run(model, b, edits, capture)
        assert torch.equal(got.x, expected.x)
        if capture:
            assert all(torch.equal(g, e) for g, e in zip(got.hidden, expected.hidden))
            assert all(torch.equal(g.weights, e.weights) for g, e in zip(got.intermediates, expected.intermediates))


@pytest.mark.parametrize("norm", ["post", "pre"])
def test_a_residual_patch_equals_the_reference_layers_with_that_state_replaced(norm):
    model = _tiny("encoder", norm, n_layers=2)
    a, b = torch.arange(4, 11)[None], torch.arange(20, 27)[None]
    run_a, run_b = _run(model, a), _run(model, b)
    where = torch.tensor([False, False, True, False, False, True, False])
    got = _run(model, b, {model.encoder: {1: Patch(run_a.hidden[1], where)}})

    def params(blk):
        m = blk.self_attn
        return dict(W_Q=_np(m.w_q.weight).T, W_K=_np(m.w_k.weight).T, W_V=_np(m.w_v.weight).T,
                    W_O=_np(m.w_o.weight).T, b_Q=_np(m.w_q.bias), b_K=_np(m.w_k.bias), b_V=_np(m.w_v.bias),
                    b_O=_np(m.w_o.bias), ln1_g=_np(blk.norm1.weight), ln1_b=_np(blk.norm1.bias),
                    ln2_g=_np(blk.norm2.weight), ln2_b=_np(blk.norm2.bias), W1=_np(blk.ffn.lin1.weight).T,
                    b1=_np(blk.ffn.lin1.bias), W2=_np(blk.ffn.lin2.weight).T, b2=_np(blk.ffn.lin2.bias))

    layers = model.encoder.layers
    x = R.transformer_layer(_np(run_b.hidden[0][0]), params(layers[0]), 4, norm=norm)
    x = np.where(where.numpy()[:, None], _np(run_a.hidden[1][0]), x)        # the stream entering L1, patched
    x = R.transformer_layer(x, params(layers[1]), 4, norm=norm)
    np.testing.assert_allclose(_np(got.hidden[2][0]), x, atol=1e-4)
    np.testing.assert_allclose(_np(got.hidden[1][0]), np.where(where.numpy()[:, None], _np(run_a.hidden[1][0]),
                                                               _np(run_b.hidden[1][0])), atol=1e-6)


def test_a_decoder_patch_never_reaches_earlier_positions():
    model = _tiny("decoder")
    a, b = torch.arange(4, 14)[None], torch.arange(20, 30)[None]
    run_a, run_b = _run(model, a), _run(model, b)
    where = torch.zeros(10, dtype=torch.bool)
    where[6] = True
    got = _run(model, b, {model.encoder: {1: Patch(run_a.hidden[1], where)}})
    assert torch.equal(got.hidden[3][:, :6], run_b.hidden[3][:, :6])
    assert not torch.allclose(got.hidden[3][:, 6:], run_b.hidden[3][:, 6:])


def test_one_patch_per_batch_row_equals_each_patch_alone():
    model = _tiny()
    a, b = torch.arange(4, 12)[None], torch.arange(20, 28)[None]
    run_a = _run(model, a)
    cells = [(0, 2), (1, 5), (2, 0), (1, 1)]
    where = torch.zeros(3, len(cells), 8, dtype=torch.bool)
    for r, (layer, t) in enumerate(cells):
        where[layer, r, t] = True
    edits = {model.encoder: {layer: Patch(run_a.hidden[layer], where[layer]) for layer in range(3)}}
    batched = _run(model, b.expand(len(cells), 8), edits)
    for r, (layer, t) in enumerate(cells):
        alone = _run(model, b, {model.encoder: {layer: Patch(run_a.hidden[layer], where[layer, r])}})
        torch.testing.assert_close(batched.x[r], alone.x[0], atol=1e-5, rtol=0)
        torch.testing.assert_close(batched.intermediates[2].weights[r], alone.intermediates[2].weights[0],
                                   atol=1e-6, rtol=0)


def test_patches_end_with_the_block_and_bad_sites_are_refused_with_a_message():
    model = _tiny()
    a, b = torch.arange(4, 12)[None], torch.arange(20, 28)[None]
    run_a, plain = _run(model, a), _run(model, b)
    with patching({model.encoder: {0: Patch(run_a.hidden[0])}}):
        pass
    assert torch.equal(_run(model, b).x, plain.x)
    with pytest.raises(ValueError, match=r"a layer index \(the residual stream\) or \(site, head\)"):
        with patching({model.encoder.layers[0].self_attn: {("v", 0): Patch(torch.zeros(1))}}):
            pass
    with pytest.raises(ValueError, match="expected a Patch"):
        with patching({model.encoder: {0: run_a.hidden[0]}}):
            pass


# ---- the analysis -------------------------------------------------------------------------------------------------

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
