"""The lecture playlist (assets/lecture_plan.json) checked against the app it points into: every view opens its page
with the tab it names open and nothing on the page saying an error; no note says the app lacks something it has; the
fine-tuning page and the chain-rule tab have their views; and each prepared example does what its note promises on
the shipped models, its numbers recomputed outside the page (tests/app/test_lecture.py checks the playlist itself:
parameters kept, stepping, export and import)."""
import re
from pathlib import Path

import numpy as np
import pytest
import torch

from app_pages import _playlist, _resources
from app_pages.views import finetune_tasks, generation, lecture
from model import checkpoints
from model.analysis import decoder_behaviour
from model.data import bpe, course_tags, course_world, text_input
from model.tasks import finetune_inputs, finetuned
from model.tasks.attention_run import run_text
from model.tasks.chain_rule import sentence_probability
from model.tasks.fill_mask import fill_mask
from model.tasks.generation import next_token_probs
from tests.app.conftest import open_link, plotly_chart, trace_z

PLAN = _playlist.prepared(list(lecture.pages()))
LECTURE_DOC = Path(__file__).resolve().parents[2] / "docs" / "pages" / "lecture.md"
# what a stale playlist said about pages the app now has
MISSING = re.compile(r"\b(app|page) has no\b|\bno [\w-]+ (page|demo)\b|\bclosest (view|is)\b|\(closest", re.I)


def open_view(view):
    """A fresh session on the view's page with its parameters, as Open this view opens it in a new tab."""
    return open_link(f"{view.page}.py", **view.query())


def views(page: str | None = None, **params) -> list[_playlist.View]:
    """The views of a page (any page when None) whose parameters include these."""
    return [v for v in PLAN if page in (None, v.page) and all(v.query().get(k) == x for k, x in params.items())]


def note_numbers(view) -> list[float]:
    return [float(x.replace("−", "-")) for x in re.findall(r"[−-]?\d+\.\d+", view.note)]


def metric(at, label: str, n: int = 0) -> str:
    return [m.value for m in at.metric if m.label == label][n]


@pytest.mark.parametrize("view", PLAN, ids=[f"{i + 1}-{v.page}" for i, v in enumerate(PLAN)])
def test_every_view_opens_its_page_with_the_tab_it_names_open(view):
    """The tabs are lazy (only the open one is drawn), so the tab the view names is the one with content, and no
    other tab of its page has any; nothing on the page is an error."""
    at = open_view(view)
    assert not at.error, [e.value for e in at.error]
    for key, label in view.query().items():
        if not key.endswith("_tab"):
            continue
        tabs = {t.label: t for t in at.tabs}
        assert label in tabs, (key, label, list(tabs))
        assert tabs[label].children, f"{label} is not the open tab"
        assert [t.label for t in at.tabs if t.children and t.label != label] == []


def test_no_note_says_the_app_lacks_what_it_has():
    said = [(v.title, v.note) for v in PLAN if MISSING.search(v.note) or MISSING.search(v.title)]
    assert said == []
    lecture_section = LECTURE_DOC.read_text(encoding="utf-8")
    assert not MISSING.search(lecture_section) and "no page for a section" not in lecture_section
    assert f"{len(PLAN)} views in all" in lecture_section


def test_the_fine_tuning_page_has_a_view_of_every_tab():
    """(Classification is the page's first tab, so its view names no tab: a link keeps only what differs.)"""
    assert {v.query().get("ft_tab", "Classification") for v in views(page="finetune")} == {
        "Classification", "Tagging", "Question answering", "Next sentence"}
    assert {v.section for v in views(page="finetune")} == {"教材 12.6.1", "教材 12.6.2"}
    assert "fine-tuned" in views(ft_tab="Next sentence")[0].note           # named as what it is here


@pytest.mark.parametrize("tab, keys", [("Next sentence", ("nsp_acc_heldout", "nsp_baseline_overlap")),
                                       ("Classification", ("binary_acc_heldout", "binary_baseline_bow")),
                                       ("Tagging", ("tag_acc_heldout", "tag_acc_heldout_frozen")),
                                       ("Question answering", ("span_exact_match_heldout",
                                                               "span_exact_match_heldout_frozen"))])
def test_a_fine_tuning_note_quotes_the_shipped_scores_the_page_shows(tab, keys):
    (view,) = [v for v in views(page="finetune") if v.query().get("ft_tab", "Classification") == tab]
    name = {"Next sentence": "finetune_nsp", "Classification": "finetune_binary", "Tagging": "finetune_tag",
            "Question answering": "finetune_span"}[tab]
    metrics = finetuned.load(name).meta["metrics"]
    assert note_numbers(view) == [round(metrics[k], 3) for k in keys]


def test_the_chain_rule_section_opens_the_chain_rule_tab_and_its_numbers_are_the_models():
    (view,) = [v for v in PLAN if v.section == "教材 12.7.1"]
    assert view.query()["gen_tab"] == "Sentence probability"
    at = open_view(view)
    model, meta = checkpoints.load("general_gpt")
    tok = text_input.tokenizer_of(meta)
    shown = [float(metric(at, f"ln Pr(sentence {side})")) for side in "AB"]
    found = [sentence_probability(model, tok, view.query()[f"chain_{side}"]).total for side in "AB"]
    assert shown == pytest.approx(found, abs=0.005) and note_numbers(view) == pytest.approx(found, abs=0.005)
    assert found[0] > found[1]                                              # reversed: far less likely, as it says


def test_the_transformer_layer_views_open_minilm_trained_post_ln():
    layer_views = [v for v in PLAN if v.query().get("steps_tab") == "The layer" and "post-LN" in v.note]
    assert {v.title for v in layer_views} == {"The Transformer layer", "Add & Norm and Feed Forward"}
    for view in layer_views:
        assert view.query()["text_model"] == "minilm"
        at = open_view(view)
        assert at.sidebar.selectbox(key="text_model").value == "minilm"
        assert [t.label for t in at.tabs if t.children] == ["The layer"]
        assert any("trained post-LN" in c.value for c in at.caption)
        assert checkpoints.load("minilm")[0].config.norm == "post"


def test_the_few_shot_view_shows_the_greedy_pick_its_note_names():
    (view,) = [v for v in PLAN if "gen_prompt" in v.query() and "few examples" in v.note]
    pick = re.search(r"greedy pick is “(.+?)”, not “(.+?)”", view.note)
    at = open_view(view)
    assert metric(at, "Greedy pick").replace("␣", " ").strip() == pick.group(1)
    model, meta = checkpoints.load("general_gpt")
    tok = text_input.tokenizer_of(meta)
    probs = next_token_probs(model, text_input.encode(tok, view.query()["gen_prompt"], text_input.rule_of(meta)).ids)
    assert tok.piece(int(np.argmax(probs))).strip() == pick.group(1) != pick.group(2)
    assert f"{sum(p.numel() for p in model.parameters()) / 1e6:.1f}-million" in view.note


def test_the_first_views_head_sends_each_pronoun_it_names_back_to_its_noun():
    """View 1: "Pick “it”, then “they” and “Their”: head L3 H0 sends each one back to “restaurant”": on the
    explorer's default text, in the default model, each of those words' largest whole-word weight in that head
    (to a word the sum over its pieces, from a word the mean over its pieces) is on that noun."""
    view = PLAN[0]
    head = re.search(r"head L(\d+) H(\d+)", view.note).groups()
    words = re.findall(r"“(\w+)”", view.note)
    *pronouns, noun = words
    assert pronouns == ["it", "they", "Their"] and view.query().get("explorer_layer") == f"L{head[0]}"
    model, meta = checkpoints.load(_resources.DEFAULT_TEXT_MODEL)
    run = run_text(model, text_input.tokenizer_of(meta), course_world.PARAGRAPH, text_input.rule_of(meta))
    w = run.weights[int(head[0]), int(head[1])].astype(np.float64)            # (N, N) pieces
    for pronoun in pronouns:
        src = run.word_texts.index(pronoun)
        row = [np.mean([w[q, list(keys)].sum() for q in run.words[src]]) for keys in run.words]
        assert run.word_texts[int(np.argmax(row))] == noun, (pronoun, run.word_texts[int(np.argmax(row))])


def test_the_fill_in_view_shows_the_first_choice_its_note_names():
    (view,) = [v for v in PLAN if v.query().get("gen_tab") == "Fill-in (encoder)"]
    sentence, word = re.search(r"On “(.+?)” this small encoder's first choice is “(.+?)”", view.note).groups()
    at = open_view(view)
    assert at.text_input(key="fill_text").value == sentence                  # the view opens on the note's sentence
    bars = plotly_chart(at, "fill_bars_0")
    assert bars["data"][0]["y"][0].split(" ", 1)[1].replace("␣", "").strip() == word
    model, meta = checkpoints.load("general_encoder")
    fill = fill_mask(model, text_input.tokenizer_of(meta), sentence, top_k=1)
    assert fill.top_pieces[0][0].strip() == word


def test_the_step_by_step_generation_view_does_not_loop():
    """Greedy decoding of the view's prompt (the page's default, 24 new pieces) repeats no 4-gram 3 times: a
    prepared demo that wrote "a man who is a man who is…" would teach the wrong lesson."""
    (view,) = [v for v in PLAN if v.query().get("gen_tab") == "Generate step by step"]
    model, meta = checkpoints.load("general_gpt")
    tok = text_input.tokenizer_of(meta)
    prompt = view.query().get("gen_prompt", generation.DEFAULT_PROMPT)
    (written,) = decoder_behaviour.greedy_continuations(model, tok, [prompt], new=24)
    assert written and not decoder_behaviour.repeats_ngram(written), tok.decode(written)


def test_the_fine_tuning_defaults_are_answered_right_by_the_fine_tuned_models():
    """The tagging tab's sentence: every word's type as the generator's noun lists give it; the binary head's
    sentence: the masked word ("played") was a verb."""
    tok = bpe.load()
    ft = finetuned.load("finetune_tag")
    t = finetune_inputs.tagged(tok, finetune_tasks.DEFAULTS["ft_tag_text"], 128)
    kind = {n: tag for tag, nouns in course_tags.nouns().items() for n in nouns}
    with torch.no_grad():
        logits = ft.full(torch.tensor([t.ids]))[0].numpy()
    tagged = [(w, ft.labels[int(logits[i].argmax())]) for w, i in t.words]
    assert tagged == [(w, kind.get(w.lower(), "O")) for w, _i in t.words]
    assert sum(tag != "O" for _w, tag in tagged) == 4
    ft = finetuned.load("finetune_binary")
    ids, _pieces = finetune_inputs.single(tok, finetune_tasks.DEFAULTS["ft_bin_text"], 64, masks=True)
    with torch.no_grad():
        assert float(ft.full(torch.tensor([ids]))[0, 0]) > 0 and ft.labels[1] == "verb"


def test_the_tutorials_decoder_views_run_its_own_sentence_chinese_to_english():
    """The tutorial's part 5 translates 我有一只猫 into “I have a cat” and draws the decoder's 5 × 5 mask over
    “<Begin> I have a cat”: its views open the Chinese → English translator on that sentence, the mask as drawn."""
    tutorial = [v for v in PLAN if v.page == "translation" and v.section.startswith("Tutorial part 5")]
    assert len(tutorial) == 3 and all(v.query().get("tr_dir") == "Chinese → English" for v in tutorial)
    (masked,) = [v for v in tutorial if v.query().get("tr_tab") == "Decoder masked self-attention"]
    at = open_view(masked)
    assert at.text_input(key="tr_zh_text").value == "我有一只猫"
    assert any(m.value == "## i have a cat" for m in at.markdown)
    mask = next(t for t in plotly_chart(at, "tr_dec_mask")["data"] if t["type"] == "heatmap")
    assert np.array_equal(trace_z(mask), np.tril(np.ones((5, 5))))
    assert "[BOS] i have a cat" in masked.note and "5 × 5" in masked.note
