"""Coreference code on tiny random models over the shipped BPE: the model class, BERT masking that spares
pronouns, cloze targets at the antecedent's first piece, batched word-level head accuracy against a
one-text-at-a-time loop, pair accuracy, baselines, resolve()'s JSON in whole words."""
import numpy as np
import pytest
import torch

from model.architectures.coref_encoder import CorefEncoder, coref_config
from model.data import bpe, text_input
from model.data import course_world as corpus
from model.data.bpe import CLS, MASK, PAD, SEP
from model.tasks.attention_run import run_text
from model.tasks.coreference import baselines, batch_weights, pair_accuracy, ref_hits, resolve
from model.tasks.word_attention import word_attention
from model.training.recipes import coref_encoder as recipe


@pytest.fixture(scope="module")
def tok():
    return bpe.load()


@pytest.fixture(scope="module")
def tiny(tok):
    torch.manual_seed(0)
    cfg = coref_config(len(tok), max_len=64).to_dict() | dict(d_model=32, d_ff=64, n_layers=2)
    return CorefEncoder.from_config(cfg).eval()


def test_coref_encoder_is_an_encoder_with_two_heads(tiny, tok):
    ids = torch.tensor([tok.encode("The cat saw the dog.", add_cls_sep=True).ids])
    lm, cloze = tiny.forward_both(ids, torch.tensor([0, 0]), torch.tensor([2, 5]))
    assert lm.shape == (1, ids.shape[1], len(tok)) and cloze.shape == (2, len(tok))
    with pytest.raises(ValueError, match="encoder"):
        CorefEncoder(coref_config(10).__class__(**{**coref_config(10).to_dict(), "kind": "decoder"}))


def test_padding_does_not_change_the_real_tokens(tiny, tok):
    short, long = "The cat saw it.", "The restaurant refused to serve me a ham sandwich because it was cold."
    alone = batch_weights(tiny, tok, [short], batch_size=1)[0]
    together = batch_weights(tiny, tok, [short, long], batch_size=2)[0]
    assert alone.shape == together.shape
    np.testing.assert_allclose(alone, together, atol=1e-5)


PRONOUN_WORDS = {"he", "she", "him", "her", "his", "hers", "himself", "herself", "it", "its", "itself", "they", "them",
                 "their", "theirs", "themselves"}


def _pronoun_pieces(tok, samples, T):
    """(S, T) bool: the pieces of every pronoun word of each text read with [CLS] and [SEP]."""
    out = torch.zeros((len(samples), T), dtype=torch.bool)
    for i, s in enumerate(samples):
        enc = text_input.encode(tok, s.text, "cls_sep")
        for word, pieces in zip(enc.word_texts, enc.words):
            if word.lower() in PRONOUN_WORDS:
                out[i, pieces] = True
    return out


def test_masking_spares_pronouns_and_specials_and_masks_about_15_percent(tok):
    samples = corpus.training_samples(400, seed=1)
    items = recipe.encode_samples(tok, samples)
    gen = torch.Generator().manual_seed(0)
    batch = recipe.collate(items, len(tok), gen, 0.15)
    ids = torch.where(batch["labels"] != -100, batch["labels"], batch["inputs"])
    chosen = batch["labels"] != -100
    pronouns = _pronoun_pieces(tok, samples, ids.shape[1])
    assert pronouns.sum() > 400 and not chosen[pronouns].any()
    assert not chosen[(ids == PAD) | (ids == CLS) | (ids == SEP)].any()
    eligible = ~((ids == PAD) | (ids == CLS) | (ids == SEP) | pronouns)
    rate = chosen.sum() / eligible.sum()
    assert 0.12 < rate < 0.18
    assert 0.7 < (batch["inputs"][chosen] == MASK).float().mean() < 0.9
    assert pronouns[batch["rows"], batch["cols"]].all()                # cloze sites are pronoun pieces


def test_every_piece_of_a_pronoun_split_in_pieces_is_spared(tok):
    sample = corpus.Sample("Astrid let the baroness draw herself again.", ())
    (item,) = recipe.encode_samples(tok, [sample])
    batch = recipe.collate([item], len(tok), torch.Generator().manual_seed(0), 1.0)    # mask all it may
    pieces = [tok.piece(i) for i in item[0]]
    at = [k for k in range(len(pieces)) if "".join(pieces[k:k + 3]) == " herself"]
    assert at and len(pieces[at[0]:at[0] + 3]) == 3                      # " h", "ers", "elf" in the shipped BPE
    chosen = (batch["labels"][0] != -100).tolist()
    assert not any(chosen[at[0]:at[0] + 3]) and chosen[at[0] - 1] and chosen[at[0] + 3]


def test_cloze_target_is_the_first_piece_of_the_antecedent(tok):
    sample = corpus.schema_sentence("venue_dish", 0, "brasserie", "sandwich", "b", 0)   # -> sandwich
    sample = corpus.Sample(corpus.natural(sample.text), sample.refs, pair=sample.pair)
    ((ids, [(pos, target)], _),) = recipe.encode_samples(tok, [sample])
    pieces = [tok.piece(i) for i in ids]
    assert pieces[pos] == " it"
    j = ids.index(target)                                        # "... serve me a sandwich because it ..."
    assert pieces[j - 1] == " a" and "".join(pieces[j:]).startswith(" sandwich because")
    assert " sandwich".startswith(pieces[j]) and j < pos


def test_no_cloze_target_when_the_candidates_begin_with_the_same_piece(tok):
    text = "The landlord talked to the landlady, but she felt lonely."
    ref = corpus.Ref(8, 5, "she", "landlady")
    both = corpus.Sample(text, (ref,), pair=("landlord", "landlady"))
    ((_, refs, spared),) = recipe.encode_samples(tok, [both])
    first = [tok.encode(w).ids[0] for w in ("landlord", "landlady")]
    assert first[0] == first[1] and refs == [] and spared         # " land": the target would not tell them apart
    ((_, refs, _),) = recipe.encode_samples(tok, [corpus.Sample(text, (ref,), pair=("landlady",))])
    assert len(refs) == 1


def test_ref_hits_match_one_text_at_a_time(tiny, tok):
    samples = corpus.eval_samples("val", 4) + corpus.eval_samples("val", 2, passages=True)
    hits = ref_hits(tiny, tok, samples)
    expected = []
    for s in samples:
        run = run_text(tiny, tok, s.text, "cls_sep")
        w = word_attention(run.weights, run.words)                        # (L, H, W, W)
        assert [t.lower() for t in run.word_texts[1:-1]] == corpus.split_words(s.text)
        for r in s.refs:
            expected.append(w[:, :, r.pronoun_index + 1].argmax(-1) == r.antecedent_index + 1)
    np.testing.assert_array_equal(hits, np.stack(expected, axis=-1))


def _sample(text, pron, ante, pair_id, pair=()):
    return corpus.Sample(text, (corpus.Ref(pron, ante, "it", "x"),), pair=pair, pair_id=pair_id)


def test_pair_accuracy_needs_both_sides_right():
    samples = [_sample("a", 0, 0, "p1"), _sample("b", 0, 0, "p1"), _sample("c", 0, 0, "p2"),
               _sample("d", 0, 0, "p2")]
    assert pair_accuracy(np.array([True, True, True, False]), samples) == 0.5
    assert pair_accuracy(np.array([True, False, False, True]), samples) == 0.0


def test_baselines_pick_first_and_nearest_noun():
    s1 = corpus.schema_sentence("animal_place", 0, "dog", "road", "a", 0)   # -> dog, the first noun
    s2 = corpus.schema_sentence("animal_place", 0, "dog", "road", "b", 0)   # -> road, the nearest noun
    assert baselines([s1, s1, s2]) == {"baseline_first_noun": 2 / 3, "baseline_nearest_noun": 1 / 3}


def test_resolve_reports_every_pronoun_in_whole_words(tiny, tok):
    text = "The cafe lost the Zorblax because it was closed. Their staff was kind."
    out = resolve(tiny, tok, text, (1, 2), top_k=4)
    assert out["tokens"][0] == "[CLS]" and out["tokens"][-1] == "[SEP]"
    assert out["tokens"][1:6] == ["The", "cafe", "lost", "the", "Zorblax"]
    enc = text_input.encode(tok, text, "cls_sep")
    assert out["pieces"] == [[enc.tokens[k] for k in w] for w in enc.words]
    assert "".join(out["pieces"][5]) == " Zorblax" and len(out["pieces"][5]) > 1     # an unseen word, in pieces
    assert [p["token"] for p in out["pronouns"]] == ["it", "Their"]
    w = word_attention(batch_weights(tiny, tok, [text])[0], enc.words)
    for p in out["pronouns"]:
        assert out["tokens"][p["index"]] == p["token"] and p["head"] == [1, 2]
        row = w[1, 2, p["index"]]
        assert p["antecedent_index"] == int(row.argmax())
        assert p["antecedent"] == out["tokens"][p["antecedent_index"]]
        weights = [v for _, v in p["top"]]
        assert len(p["top"]) == 4 and weights == sorted(weights, reverse=True)
        assert p["top"][0] == [p["antecedent"], round(float(row.max()), 4)]
        assert sum(row) == pytest.approx(1.0, abs=1e-5)      # word rows still sum to 1


def test_bpe_reads_words_the_word_vocabulary_never_had(tok):
    enc = text_input.encode(tok, "The zorblax ate the raccoon.", "cls_sep")
    assert not any(enc.unknown) and bpe.UNK not in enc.ids
    assert "zorblax" in enc.word_texts and "zorblax" not in corpus.core_words()


def test_content_words_leave_out_specials_punctuation_function_words_and_pronouns():
    from model.tasks.coreference import content_words
    words = ["[CLS]", "The", "animal", "didn't", ",", "it", "was", "Lisa", "[SEP]"]
    assert content_words(words).tolist() == [False, False, True, True, False, False, False, True, False]
