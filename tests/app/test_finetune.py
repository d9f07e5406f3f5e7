"""AppTest of the fine-tuning page against the shipped fine-tunings: each tab's answers recomputed from the models
outside the page, the attention shown before fine-tuning read from the pre-trained encoder itself, empty input and
stale links answered with their messages."""
import numpy as np
import pytest
import torch

from model.analysis.finetune_run import sigmoid
from model.data import bpe, course_tags
from model.engine.capture import capturing
from model.tasks import finetune_inputs, finetuned, spans
from tests.app.conftest import open_link, plotly_chart, trace_z


@pytest.fixture(scope="module")
def tok():
    return bpe.load()


def logits(name: str, ids: list[int]) -> tuple[np.ndarray, np.ndarray]:
    ft = finetuned.load(name)
    x = torch.tensor([ids])
    with torch.no_grad():
        return ft.full(x)[0].numpy(), ft.frozen(x)[0].numpy()


def metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_classification_answers_as_the_model_does_and_shows_the_pre_trained_heads(tok):
    text = "the dog [MASK] at the mailman"
    at = open_link("finetune.py", ft_tab="Classification", ft_cls_text=text)
    ids, _pieces = finetune_inputs.single(tok, text, 128, masks=True)
    assert ids.count(bpe.MASK) == 1 and not at.warning
    full, frozen = logits("finetune_cls", ids)
    labels = finetuned.load("finetune_cls").labels
    assert metric(at, "Fully fine-tuned") == labels[int(full.argmax())]
    assert metric(at, "Frozen encoder") == labels[int(frozen.argmax())]
    head = at.selectbox(key="ft_cls_head").value                        # "L2 H1": layer 2, head 1
    layer, h = int(head[1]), int(head.split("H")[1])
    base = finetuned.load("finetune_cls").base
    with capturing(), torch.no_grad():
        weights = base.encode(torch.tensor([ids])).intermediates[layer].weights[0, h].numpy()
    shown = plotly_chart(at, "ft_cls_pair")["data"][0]
    assert np.allclose(trace_z(shown), weights, atol=1e-5)
    metrics = finetuned.load("finetune_cls").meta["metrics"]
    table = at.dataframe[0].value
    assert list(table.iloc[0][1:]) == [f"{metrics['cls_acc_heldout']:.3f}", f"{metrics['cls_acc_heldout_frozen']:.3f}"]
    baselines = at.dataframe[1].value
    assert list(baselines.iloc[:, 1]) == [f"{metrics[k]:.3f}" for k in
                                          ("cls_baseline_majority", "cls_baseline_bow", "cls_baseline_bow_bigrams")]
    at.text_area(key="ft_cls_text").set_value("a large burrowing animal with long ears").run()
    assert not at.exception and [w.value for w in at.warning] == [
        "The sentence has no [MASK]: the head was trained on sentences with one word replaced by [MASK], so its "
        "answer here means little."]


def test_span_answer_is_the_best_span_inside_the_passage(tok):
    question = "Who put the lamp away?"
    passage = "The pilot put the lamp in the chest. The dancer ate a tart at the pub."
    at = open_link("finetune.py", ft_tab="Question answering", ft_span_question=question, ft_span_passage=passage)
    q = finetune_inputs.question(tok, question, passage, 128)
    full, _frozen = logits("finetune_span", q.ids)
    best, found = -np.inf, None
    for s in range(q.lo, q.hi):                                          # brute force over the passage's spans
        for e in range(s, min(q.hi, s + finetune_inputs.MAX_ANSWER)):
            if full[s, 0] + full[e, 1] > best:
                best, found = full[s, 0] + full[e, 1], (s, e)
    a, b = finetune_inputs.characters(q, *found)
    assert metric(at, "Fully fine-tuned") == passage[a:b] and passage[a:b] in passage
    assert spans.exact_match(passage[a:b], "pilot") == 1.0                  # and here it is right


def test_tagging_lists_every_word_and_empty_input_says_what_to_do():
    at = open_link("finetune.py", ft_tab="Tagging", ft_tag_text="The dancer fed the porcupine.")
    assert list(at.dataframe[0].value.iloc[:, 0]) == ["The", "dancer", "fed", "the", "porcupine"]
    at.text_input(key="ft_tag_text").set_value("  ...  ").run()
    assert not at.exception and at.info[0].value == "Type a sentence with words to tag."


def test_next_sentence_needs_both_sentences_and_a_stale_link_says_so():
    at = open_link("finetune.py", ft_tab="Next sentence", ft_nsp_b="")
    assert [i.value for i in at.info] == ["Type both sentences."]
    at = open_link("finetune.py", ft_tab="Nope")
    assert "The link asked for the tab “Nope”, which is not on this page now; showing “Classification”." in \
        [i.value for i in at.info]


def test_the_textbook_classifier_is_one_number_from_cls_through_a_sigmoid(tok):
    """Below the four-way head: z = w·h_[CLS] + b, σ(z) and binary cross-entropy written out, each model's answer and
    σ(z) as the model gives them, its held-out scores beside a majority and a bag-of-words baseline."""
    text = "the children [MASK] in the park"
    at = open_link("finetune.py", ft_tab="Classification", ft_bin_text=text)
    ids, _pieces = finetune_inputs.single(tok, text, 128, masks=True)
    full, frozen = logits("finetune_binary", ids)
    assert full.shape == frozen.shape == (1,)
    answers = [m.value for m in at.metric if m.label in ("Fully fine-tuned", "Frozen encoder")][2:]   # after 4-way
    assert answers == [("verb" if z[0] > 0 else "noun") for z in (full, frozen)] and answers[0] == "verb"
    said = [c.value for c in at.caption if c.value.startswith("z = ")]
    assert said == [f"z = {z[0]:.2f}, σ(z) = {float(sigmoid(z[0])):.2f}: the probability of “verb”"
                    for z in (full, frozen)]
    formulas = " ".join(e.value for e in at.latex)
    assert r"\sigma(z)" in formulas and r"h_{\texttt{[CLS]}}" in formulas
    assert r"\log\bigl(1 - \sigma(z)\bigr)" in formulas
    m = finetuned.load("finetune_binary").meta["metrics"]
    tables = [d.value for d in at.dataframe]
    assert list(tables[2].iloc[0][1:]) == [f"{m['binary_acc_heldout']:.3f}", f"{m['binary_acc_heldout_frozen']:.3f}"]
    assert list(tables[3].iloc[:, 1]) == [f"{m[k]:.3f}" for k in ("binary_baseline_majority", "binary_baseline_bow")]
    assert not at.exception and not at.error


def test_tagging_opens_on_a_sentence_it_gets_right_and_says_what_its_scores_say():
    at = open_link("finetune.py", ft_tab="Tagging")
    table = at.dataframe[0].value
    kind = {n: tag for tag, nouns in course_tags.nouns().items() for n in nouns}
    names = {"O": "none (O)", "PERSON": "person", "OBJECT": "object", "CONTAINER": "container", "PLACE": "place"}
    assert [v.split(" (")[0] if not v.startswith("none") else "none (O)" for v in table["Fully fine-tuned"]] == [
        names[kind.get(w.lower(), "O")] for w in table["word"]]
    assert set(table["noun in training?"]) == {"", "yes"}                     # training nouns, and it says so
    m = finetuned.load("finetune_tag").meta["metrics"]
    verdict = next(x.value for x in at.markdown if x.value.startswith("**What the numbers say.**"))
    gain = m["tag_acc_heldout"] - m["tag_acc_heldout_frozen"]                # the verdict follows the numbers
    assert (f"beats the frozen encoder by {100 * gain:.1f} points" if gain > 0 else "does not beat") in verdict
    assert f"{m['tag_acc_heldout']:.3f} of the words" in verdict and f"{m['tag_acc_heldout_frozen']:.3f};" in verdict
    held = [w for w in ("nurse", "cello", "barrel")]
    assert all(course_tags.is_heldout_noun(w) and f"“{w}”" in verdict for w in held)
    at.text_input(key="ft_tag_text").set_value("The nurse put the cello in the barrel.").run()
    assert list(at.dataframe[0].value["noun in training?"])[1] == "no, held out"


def test_next_sentence_is_named_a_head_fine_tuned_on_an_mlm_only_encoder():
    at = open_link("finetune.py", ft_tab="Next sentence")
    about = next(x.value for x in at.markdown if x.value.startswith("**Next-sentence prediction**"))
    assert "Here it is not a pre-training task" in about and "pre-trained on masked words only" in about
    assert "BERT's second pre-training task" not in about
