"""Predict, then reveal (AppTest) on the three key views: until Reveal the figure or number that gives the answer
is not on the page; a wrong pick is told so with the true answer, a right one that it is correct; Try again asks
again. The true answers are checked against computations written here: the coreference head's argmax from the
model's captured piece weights summed into words by hand; the entries [5, 9] of the masks from the patterns' rules
written out; the softmax without √d_k from the model's own weights w, since softmax(q·k) = w^√d_k / Σ w^√d_k.
With predictions off (?predict=false, part of the link) every answer shows at once; the pick and the reveal
never enter the link. Runs on the shipped coref_encoder (the default text model and the coreference model)."""
import json
import math

import numpy as np
import pytest

from app_pages._url import word_labels
from model import checkpoints
from model.analysis import steps
from model.data import course_world as corpus
from model.data import text_input
from model.engine import masks
from model.tasks.attention_run import run_text
from tests.app.conftest import open_link, open_page
from tests.app.conftest import plotly_array as values


def charts(at) -> dict[str, dict]:
    """key of each Plotly chart on the page -> its spec."""
    return {el.proto.id.split("-", 2)[-1]: json.loads(el.proto.spec) for el in at.get("plotly_chart")}


def reveal(at, key: str, pick):
    at.button_group(key=f"{key}_pick").set_value(pick).run()
    at.button(key=f"{key}_reveal").click().run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def verdicts(at) -> list[str]:
    return [e.value.replace("\\", "").replace("**", "") for e in (*at.success, *at.error)]


@pytest.fixture(scope="module")
def coref():
    model, meta = checkpoints.load("coref_encoder")
    return model, text_input.tokenizer_of(meta), tuple(meta["coref_head"])


def word_argmax(model, tok, text: str, head: tuple[int, int], word: str) -> str:
    """The word that `word` (its first occurrence) attends to most in `head`: the model's captured piece weights,
    to a word the sum over its pieces, from a word the mean over its pieces."""
    run = run_text(model, tok, text, "cls_sep")
    w = run.weights[head[0], head[1]].astype(np.float64)                      # (N, N) pieces
    src = [t.lower() for t in run.word_texts].index(word)
    row = [np.mean([w[q, list(keys)].sum() for q in run.words[src]]) for keys in run.words]
    return run.word_texts[int(np.argmax(row))]


def test_coreference_hides_the_arrows_until_the_learner_has_predicted(coref):
    model, tok, head = coref
    expected = word_argmax(model, tok, corpus.PARAGRAPH, head, "it")
    assert expected == corpus.CLASSIC_ANSWERS[corpus.PARAGRAPH]["it"] == "restaurant"
    at = open_page("coreference.py", timeout=180)
    assert not at.exception, [e.message for e in at.exception]
    question = next(m.value for m in at.markdown if m.value.startswith("**Predict first.**"))
    assert f"**it** attend to most in head **L{head[0]} H{head[1]}**" in question
    pills = at.button_group(key="coref_predict_pick")
    options = list(pills.options)                                            # as shown: whole words
    assert expected in options and "sandwich" in options and pills.value is None
    index = {w: i for i, w in enumerate(word_labels(run_text(model, tok, corpus.PARAGRAPH, "cls_sep").word_texts))}
    assert at.button(key="coref_predict_reveal").disabled                   # nothing picked: nothing to reveal
    assert not charts(at) and not at.dataframe                               # no arrows, rows or table yet
    assert not any(" points **" in m.value for m in at.markdown)

    reveal(at, "coref_predict", index["sandwich"])
    assert verdicts(at) == [f"Not quite. You said “sandwich”; the answer is “{expected}”."]
    assert {"coref_arrows", "coref_rows"} <= set(charts(at)) and len(at.dataframe[0].value) == 16
    assert any(f"at **{expected}**" in m.value for m in at.markdown)
    # only the switch is bound to the URL: the pick (and the reveal, a button) never reach a copied link
    assert at.toggle(key="predict").proto.query_param_key == "predict"
    assert not at.main.button_group(key="coref_predict_pick").proto.query_param_key

    at.button(key="coref_predict_again").click().run()
    assert at.button_group(key="coref_predict_pick").value is None and not charts(at) and not verdicts(at)
    reveal(at, "coref_predict", index[expected])
    assert verdicts(at) == [f"Correct: “{expected}”."]

    at.selectbox(key="coref_pronoun").select_index(1).run()                  # "they": another question
    assert at.button_group(key="coref_predict_pick").value is None and not charts(at)


def word_row(model, tok, text: str, head: tuple[int, int], word: str) -> np.ndarray:
    """`word`'s row of whole-word weights in `head`, from the model's captured piece weights (as word_argmax)."""
    run = run_text(model, tok, text, "cls_sep")
    w = run.weights[head[0], head[1]].astype(np.float64)
    src = [t.lower() for t in run.word_texts].index(word)
    return np.array([np.mean([w[q, list(keys)].sum() for q in run.words[src]]) for keys in run.words])


VAGUE = "The window was open, so the flies came in, and we could not close it."


def test_a_head_with_no_clear_answer_gets_a_calm_notice_not_a_question(coref):
    """Where the coreference head's largest weight at the pronoun is under 0.3 there is no answer to predict or to
    call wrong (the walk: "Not quite… the answer is 'the'" at 0.169): the page says so and draws the spread; where
    it points clearly, it asks."""
    model, tok, head = coref
    for text in (VAGUE, corpus.PARAGRAPH):
        first = next(w for w in run_text(model, tok, text, "cls_sep").word_texts if w.lower() in corpus.PRONOUNS)
        largest = word_row(model, tok, text, head, first.lower()).max()
        at = open_link("coreference.py", coref_text=text)
        assert not at.exception, [e.message for e in at.exception]
        asked = any(m.value.startswith("**Predict first.**") for m in at.markdown)
        notice = [i.value for i in at.info if i.value.startswith("No clear answer here")]
        assert asked == (largest >= 0.3) and bool(notice) == (largest < 0.3), (text, largest, asked, notice)
        if notice:
            assert f"its largest weight is **{largest:.3f}**" in notice[0]
            assert "coref_arrows" in charts(at) and not verdicts(at)          # the spread is drawn, nothing judged
    assert word_row(model, tok, VAGUE, head, "it").max() < 0.3 <= word_row(model, tok, corpus.PARAGRAPH, head,
                                                                            "it").max()     # one of each


def allows_5_to_9(key: str, n: int) -> bool:
    """May query 5 attend key 9, from each pattern's rule as its paper states it, with the prediction's
    parameters (the lab's window w = 2, every other parameter its default)."""
    i, j, w = 5, 9, 2
    drawn = set(np.random.default_rng((0, n)).integers(0, n, size=(n, 2))[i])   # BigBird's r = 2 random keys
    return {"full": True, "causal": j <= i, "window": abs(j - i) <= w,
            "dilated": abs(j - i) <= w * 2 and (j - i) % 2 == 0,
            "global": abs(j - i) <= w or bool({0, 9} & {i, j}),   # chosen: tokens 0 and 9 of the text
            "extra_global": abs(j - i) <= w,                      # extra: G0 is a new token, neither 5 nor 9
            "random": j in drawn or j == i, "bigbird": abs(j - i) <= w or 0 in (i, j) or j in drawn,
            "strided": abs(j - i) < 4 or (j - i) % 4 == 0, "block_local": i // 4 == j // 4,
            "padding": j < 8}[key]


def test_masks_prediction_reads_the_answer_from_the_masks_then_draws_them():
    at = open_page("masks.py", timeout=180)
    assert not at.exception, [e.message for e in at.exception]
    pills = at.button_group(key="masks_predict_pick")
    titles = {masks.PATTERNS[k].title: k for k in masks.PATTERNS}
    assert pills.options[0] == "Full \\(encoder\\)"                              # a pill renders Markdown: escaped
    shown = [label.replace("\\", "") for label in pills.options]
    asked = [titles[label.split(" · ")[0]] for label in shown]               # "Sliding window · w = 2"
    assert set(asked) == set(masks.PATTERNS) - {"swin"} and pills.value == []
    right = [k for k in asked if allows_5_to_9(k, 32)]
    assert {"full", "dilated", "strided", "global"} <= set(right) and "causal" not in right and "window" not in right
    assert "extra_global" not in right                                       # the two kinds answer differently
    assert not {"masks_predict_grid", "masks_plot_A", "masks_plot_B"} & set(charts(at))   # nothing given away
    assert "Patterns A and B are drawn once you have predicted." in [c.value for c in at.caption]

    reveal(at, "masks_predict", ["full", "window"])
    assert {"masks_plot_A", "masks_plot_B"} <= set(charts(at))
    said = verdicts(at)[0]
    assert said.startswith("Not quite. You said “Full (encoder)” and “Sliding window · w = 2”; the answer is ")
    for k, label in zip(asked, shown):
        assert (f"“{label}”" in said.split("the answer is")[1]) == (k in right), k
    grid = charts(at)["masks_predict_grid"]
    titles = [a["text"] for a in grid["layout"]["annotations"][:len(asked)]]
    for k, trace, title in zip(asked, grid["data"], titles):
        z, g = values(trace["z"]), masks.PATTERNS[k].added()                 # extra: G0 in front of tokens 0..15
        assert z.shape == (16 + g, 16 + g) and bool(z[5 + g, 9 + g]) == (k in right), k
        assert title.endswith("<br>sees" if k in right else "<br>blocked")

    at.button(key="masks_predict_again").click().run()
    assert not {"masks_predict_grid", "masks_plot_A"} & set(charts(at))
    reveal(at, "masks_predict", right)
    assert verdicts(at)[0].startswith("Correct: ")

    at.number_input(key="masks_n").set_value(12).run()                       # another N: asked again
    assert at.button_group(key="masks_predict_pick").value == [] and "masks_predict_grid" not in charts(at)
    at.toggle(key="predict").set_value(False).run()                          # off: the masks at once
    assert "masks_predict_grid" in charts(at) and not at.main.button_group


def test_step_by_step_asks_what_softmax_gives_without_the_scaling(coref):
    model, tok, _ = coref
    text = "The restaurant refused to serve me a ham sandwich because it was too salty."
    run = run_text(model, tok, text, "cls_sep")
    it = [t.strip() for t in run.tokens].index("it")
    rows = run.weights[1, :, it].astype(np.float64)                          # softmax(q·k/√d_k), from the model
    head = int(rows.max(1).argmin())                                         # L1's head that spreads "it" most
    w = rows[head]
    d_k = model.config.d_model // model.config.n_heads
    unscaled = w ** math.sqrt(d_k) / (w ** math.sqrt(d_k)).sum()              # softmax(q·k)
    assert unscaled.max() - w.max() > steps.SAME_WITHIN                      # so the answer is "more peaked"

    at = open_page("step_by_step.py", timeout=180)
    at.selectbox(key="steps_layer").set_value(1)
    at.session_state["steps_tab"] = "Why √d_k"
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    token = at.selectbox(key="steps_token")
    assert token.format_func(token.value) == "it"
    question = next(m.value for m in at.markdown if m.value.startswith("**Predict first.**"))
    assert f"heads of **L1**, **H{head}** spreads the query **it** the most" in question
    assert f"**{w.max():.3f}**" in question
    assert not charts(at) and not at.metric                                  # no bars, curves or numbers yet

    reveal(at, "steps_predict", "flatter")
    assert verdicts(at) == ["Not quite. You said “Flatter (closer to uniform)”; the answer is “More peaked "
                            "(closer to one-hot)”."]
    explain = next(c.value for c in at.caption if c.value.startswith("Largest weight"))
    assert explain.startswith(f"Largest weight **{w.max():.3f}** with ÷√{d_k}, **{unscaled.max():.3f}** without")
    bars = charts(at)["steps_predict_bars"]["data"]
    np.testing.assert_allclose(values(bars[0]["y"]), w, atol=1e-5)
    np.testing.assert_allclose(values(bars[1]["y"]), unscaled, atol=1e-4)
    assert len(at.metric) == 3 and "steps_predict_bars" in charts(at)      # the random-vector demo below too

    at.button(key="steps_predict_again").click().run()
    assert not charts(at) and not at.metric
    reveal(at, "steps_predict", "more peaked")
    assert verdicts(at) == ["Correct: “More peaked (closer to one-hot)”."]


def test_a_link_with_predictions_off_shows_every_answer_at_once():
    at = open_link("coreference.py", predict="false")
    assert not at.main.button_group and {"coref_arrows", "coref_rows"} <= set(charts(at))
    assert any(c.value == "Predictions are off: the answers are shown at once." for c in at.caption)
    assert at.toggle(key="predict").value is False and at.query_params["predict"] == "false"


def test_a_decoder_is_asked_about_the_keys_its_causal_mask_leaves():
    model, meta = checkpoints.load("general_gpt")
    text = "The restaurant refused to serve me a ham sandwich because it was too salty."
    tokens = run_text(model, text_input.tokenizer_of(meta), text, text_input.rule_of(meta)).tokens
    it = [t.strip() for t in tokens].index("it")
    at = open_link("step_by_step.py", text_model="general_gpt", steps_tab="Why √d_k")
    question = next(m.value for m in at.markdown if m.value.startswith("**Predict first.**"))
    assert f"scores q·k against {it + 1} keys" in question                   # itself and the tokens before it
