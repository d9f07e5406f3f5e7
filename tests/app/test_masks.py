"""AppTest of the masks page: the drawn masks, densities, layer counts, the live run and the measured cost
are the ones model/ computes for the chosen settings; the trained sparse model reads any text as readable
BPE pieces and its evaluation caption states its shipped metrics."""

import re

import numpy as np
import pytest

from model.analysis import reach
from model.engine import masks
from runtime import job_queue
from tests.app.conftest import open_link
from tests.app.conftest import plotly_chart as chart
from tests.app.conftest import trace_z as z_of


@pytest.fixture(scope="module")
def at():
    page = open_link("masks.py", predict="false")          # the lab's masks at once (tests/app/test_predict.py)
    assert not page.exception, [e.message for e in page.exception]
    return page


def show(at, tab: str):
    """Open a tab (the receptive field, live effect and cost tabs are lazy: they run when open) and rerun."""
    at.session_state["masks_tab"] = tab
    at.run()
    assert not at.exception, [e.message for e in at.exception]


def metric(at, prefix: str) -> str:
    return next(m.value for m in at.metric if m.label.startswith(prefix))


def test_default_masks_are_drawn_from_the_registry(at):
    np.testing.assert_array_equal(z_of(chart(at, "masks_plot_A")["data"][0]), masks.sliding_window(32, 2))
    np.testing.assert_array_equal(z_of(chart(at, "masks_plot_B")["data"][0]), masks.extra_global_tokens(32, 1, 2))
    assert metric(at, "density of A") == f"{masks.sliding_window(32, 2).mean():.2%}"


def test_extra_global_tokens_add_a_token_and_chosen_ones_do_not(at):
    """Textbook 12.9: B (extra, g = 1) is drawn 33 × 33 with G0 in front of the 32 tokens; A switched to chosen
    global tokens stays 32 × 32. Their difference lines the tokens up: every pair of G0 is only in B."""
    b = chart(at, "masks_plot_B")["data"][0]
    assert z_of(b).shape == (33, 33) and b["x"][:2] == ["G0", "0"] and b["x"][-1] == "31"
    captions = " ".join(c.value for c in at.caption)
    assert "(N + g) × (N + g) = 33 × 33" in captions
    at.selectbox(key="masks_A_pattern").set_value("global").run()
    assert not at.exception
    a = masks.global_tokens(32, (0,), 2)
    np.testing.assert_array_equal(z_of(chart(at, "masks_plot_A")["data"][0]), a)
    assert "no token is added, the mask stays 32 × 32" in " ".join(c.value for c in at.caption)
    extra = masks.extra_global_tokens(32, 1, 2)
    shifted = np.pad(a, ((1, 0), (1, 0)))
    np.testing.assert_array_equal(z_of(chart(at, "masks_plot_diff")["data"][0]),
                                  (shifted & ~extra) * 1 + (extra & ~shifted) * 2 + (shifted & extra) * 3)
    assert metric(at, "only in B") == f"{int((extra & ~shifted).sum()):,}"
    at.selectbox(key="masks_A_pattern").set_value("window").run()


def test_changing_pattern_redraws_mask_difference_and_reach(at):
    at.number_input(key="masks_n").set_value(40)
    at.selectbox(key="masks_A_pattern").set_value("dilated")
    at.run()
    at.number_input(key="masks_A_width").set_value(3)
    at.run()
    assert not at.exception
    a, b = masks.dilated_window(40, 3, 2), masks.extra_global_tokens(40, 1, 2)
    np.testing.assert_array_equal(z_of(chart(at, "masks_plot_A")["data"][0]), a)
    a_framed = np.pad(a, ((1, 0), (1, 0)))                           # A lacks B's added token G0
    np.testing.assert_array_equal(z_of(chart(at, "masks_plot_diff")["data"][0]),
                                  (a_framed & ~b) * 1 + (b & ~a_framed) * 2 + (a_framed & b) * 3)
    assert metric(at, "pairs that differ") == f"{int((a_framed != b).sum()):,}"
    show(at, "Receptive field")
    np.testing.assert_array_equal(z_of(chart(at, "masks_reach_A")["data"][0]), reach.receptive_field(a, 2))
    np.testing.assert_array_equal(z_of(chart(at, "masks_reach_B")["data"][0]), reach.receptive_field(b, 2))
    text = " ".join(m.value for m in at.markdown)
    assert "never connects everything" in text                      # dilation 2 keeps odd and even apart
    assert "after **2 layers**" in text                            # one global token: two hops
    at.slider(key="masks_k").set_value(1).run()
    assert chart(at, "masks_reach_A")["layout"]["title"]["text"] == "A after 1 layer"
    at.slider(key="masks_k").set_value(2).run()
    show(at, "Pattern lab")


def test_bad_global_positions_get_a_readable_error(at):
    at.selectbox(key="masks_B_pattern").set_value("global")
    at.run()
    at.text_input(key="masks_B_positions").set_value("0, banana")
    at.run()
    assert not at.exception
    assert any("whole numbers" in e.value for e in at.error)


def test_live_effect_zeroes_blocked_weights_and_compares_with_full_attention(at):
    show(at, "Live effect")
    assert metric(at, "largest weight on a blocked pair") == "0 exactly"
    at.number_input(key="masks_live_width").set_value(1)
    at.run()
    assert not at.exception
    n = int(metric(at, "tokens N"))
    mask = masks.extra_global_tokens(n - 1, 1, 1)                      # the added token is the model's own [CLS]
    z = z_of(chart(at, "masks_live_masked")["data"][0])
    assert z.shape == (n, n) and (z[~mask] == 0).all()
    np.testing.assert_allclose(z.sum(1), 1.0, atol=1e-4)
    full = z_of(chart(at, "masks_live_full")["data"][0])
    assert (full[~mask] > 0).any()                                  # full attention does use the blocked pairs


def test_live_extra_global_token_is_the_models_cls_and_chosen_ones_start_sentences(at):
    show(at, "Live effect")
    at.selectbox(key="masks_model").set_value("sparse_encoder").run()
    at.number_input(key="masks_live_n_global").set_value(2).run()      # the model has one token in front: [CLS]
    assert not at.exception and any("set g = 1" in e.value for e in at.error)
    at.number_input(key="masks_live_n_global").set_value(1).run()
    assert not any("set g" in e.value for e in at.error) and any("model's own [CLS]" in c.value for c in at.caption)
    at.selectbox(key="masks_live_pattern").set_value("global").run()
    assert not at.exception
    from model.data import bpe, text_input
    from model.data.course_world import PARAGRAPH
    tokens = text_input.encode(bpe.load(), PARAGRAPH, "cls_sep").tokens
    starts = text_input.sentence_starts(tokens)
    assert at.text_input(key="masks_live_positions").value == ", ".join(map(str, starts))
    assert [tokens[i].strip() for i in starts] == ["The", "In", "Their"] and 0 not in starts    # not [CLS]
    z = z_of(chart(at, "masks_live_masked")["data"][0])
    assert (z[~masks.global_tokens(len(tokens), starts, 8)] == 0).all()
    at.selectbox(key="masks_live_pattern").set_value("extra_global").run()


def test_cost_table_shows_extra_global_tokens_growing_the_matrix(at):
    show(at, "Cost")
    table = next(d.value for d in at.dataframe if "pattern" in d.value.columns).set_index("pattern")
    n, g, w = 4096, 16, 128
    assert table.loc["Chosen global tokens", "tokens in the matrix"] == f"{n:,} × {n:,}"
    assert table.loc["Extra global tokens", "tokens in the matrix"] == f"{n + g:,} × {n + g:,}"
    for name, key, p in (("Chosen global tokens", "global", dict(positions=tuple(range(g)))),
                         ("Extra global tokens", "extra_global", dict(n_global=g))):
        assert table.loc[name, "allowed pairs"] == f"{masks.allowed_pairs(key, n, width=w, **p):,}"
    band = n * (2 * w + 1) - w * (w + 1)
    assert table.loc["Extra global tokens", "allowed pairs"] == f"{band + 2 * g * n + g * g:,}"


def test_cost_curves_count_pairs_and_measure_on_demand(at):
    show(at, "Cost")
    pairs = chart(at, "masks_pairs")["data"]
    window = next(t for t in pairs if t["name"].startswith("Sliding window"))
    ys = window["y"] if isinstance(window["y"], list) else z_of({"z": window["y"]})
    assert int(ys[-1]) == masks.allowed_pairs("window", 16384, width=128)
    at.multiselect(key="masks_cost_n").set_value([256, 512])
    at.multiselect(key="masks_cost_methods").set_value(["dense_masked", "sparse"])
    at.button(key="masks_cost_go").click()
    at.run(timeout=180)
    assert not at.exception
    table = at.dataframe[-1].value                                     # the measurements, under the pairs table
    assert len(table) == 4 and set(table["method"]) == {"dense_masked", "sparse"}
    assert (table["time (ms)"] > 0).all()
    assert chart(at, "masks_time")["data"] and chart(at, "masks_mem")["data"]


def test_a_full_queue_of_heavy_jobs_says_the_server_is_busy(at, monkeypatch):
    full = job_queue.Queue(slots=1, waiting=0, memory_mb=None)
    held = full.reserve(owner="another session")
    monkeypatch.setattr(job_queue, "QUEUE", full)
    show(at, "Cost")                                                   # whichever test ran before on this worker
    at.button(key="masks_cost_go").click()
    at.run(timeout=60)
    held.finish()
    assert not at.exception
    assert "The server is busy: 0 heavy jobs are waiting and 1 running. Try again in a minute." in [
        w.value for w in at.warning]
    assert "At most 1 heavy job runs at once on this server, for all its users" in " ".join(c.value for c in at.caption)


def test_a_measurement_over_the_memory_bound_says_so(at, monkeypatch):
    monkeypatch.setattr(job_queue, "QUEUE", job_queue.Queue(slots=1, waiting=4, memory_mb=1200))
    show(at, "Cost")                                                   # whichever test ran before on this worker
    at.multiselect(key="masks_cost_n").set_value([16384])              # dense: a 1 GiB score matrix, and torch
    at.multiselect(key="masks_cost_methods").set_value(["dense_masked"])  # itself maps ~650 MiB
    at.button(key="masks_cost_go").click()
    at.run(timeout=180)
    assert not at.exception
    said = [w.value for w in at.warning] + [e.value for e in at.error]
    assert ("dense + mask (masked_fill) at N = 16,384 needs more than the 1,200 MiB of memory one measurement may use "
            "on this server." in said or "The measurement needed more than the 1,200 MiB of memory a heavy job may "
            "use on this server." in said), said


# ---- the trained sparse model on any text: BPE pieces shown readably, its evaluation stated truthfully ----

MIXED = "The restaurant near the station is quiet. 老师喜欢车站附近的餐厅。 A naïve café!"


def shown_text(labels: list[str]) -> str:
    """The text a row of axis labels spells: "␣" is a space, and a character split into byte pieces
    ("餐 1/3", "餐 2/3", "餐 3/3") counts once, at its last part."""
    out = []
    for label in labels:
        piece = label.rsplit(" ·", 1)[0]                                # the heatmap numbers each label
        part = re.fullmatch(r"(.+) (\d+)/(\d+)", piece)
        if part:
            piece = part[1] if part[2] == part[3] else ""
        out.append(piece.replace("␣", " ").replace("↵", "\n"))
    return "".join(out)


@pytest.fixture(scope="module")
def sparse_meta():
    from model import checkpoints
    return checkpoints.read_meta("sparse_encoder")


def test_sparse_model_reads_english_and_chinese_as_readable_pieces_without_unk(at, sparse_meta):
    from model.data import bpe
    show(at, "Live effect")
    at.selectbox(key="masks_model").set_value("sparse_encoder")
    at.text_area(key="masks_text").set_value(MIXED)
    at.run()
    assert not at.exception
    enc = bpe.load().encode(MIXED, add_cls_sep=True)                  # what the model reads, independently
    assert int(metric(at, "tokens N")) == len(enc.ids) and bpe.UNK not in enc.ids
    assert any(p.startswith("<0x") for p in enc.pieces)                # some characters are split into bytes
    for key in ("masks_live_masked", "masks_live_full"):
        trace = chart(at, key)["data"][0]
        assert trace["x"] == trace["y"] and len(trace["x"]) == len(enc.ids)
        labels = trace["x"]
        assert not any("<0x" in t or "[UNK]" in t for t in labels)
        assert shown_text(labels) == "[CLS]" + enc.text + "[SEP]"     # the pieces spell the text, in order
    assert any(t.startswith("餐 1/3 ·") for t in labels)                 # 餐 is split into its three UTF-8 bytes
    assert any("␣ is the space" in c.value for c in at.caption)
    assert not any("[UNK]" in w.value for w in at.warning)


def live_sparse(at):
    """The live tab on the sparse model, whichever test ran before on this worker."""
    show(at, "Live effect")
    at.selectbox(key="masks_model").set_value("sparse_encoder").run()


def test_sparse_model_evaluation_caption_states_the_shipped_metrics(at, sparse_meta):
    live_sparse(at)
    m = sparse_meta["metrics"]
    caption = next(c.value for c in at.caption if c.value.startswith("Evaluation on"))
    assert "held-out real text" in caption and "piece" in caption
    for key in ("mlm_accuracy", "mlm_accuracy_full_attention", "mlm_baseline_most_frequent"):
        assert f"**{m[key]:.1%}**" in caption, key
    assert f"of {m['eval_masked_tokens']:,} pieces" in caption and f"{m['eval_tokens_per_sequence']}-piece" in caption
    assert f"window ±{m['pattern_width']} plus {m['pattern_global_tokens']} extra global token, [CLS]" in caption
    own, full, base = (caption.index(f"**{m[k]:.1%}**") for k in
                       ("mlm_accuracy", "mlm_accuracy_full_attention", "mlm_baseline_most_frequent"))
    assert own < full < base                                          # each number next to its own words
    assert "under its own pattern" in caption[own:full] and "attend to all" in caption[full:base]
    assert "most frequent piece" in caption[base:]


def test_text_longer_than_the_model_reads_is_cut_with_a_notice(at, sparse_meta):
    live_sparse(at)
    at.text_area(key="masks_text").set_value("The cat sat on the mat. " * 110)   # about 660 pieces
    at.run()
    assert not at.exception
    limit = sparse_meta["config"]["max_len"]
    assert int(metric(at, "tokens N")) == limit
    assert any(f"reads at most {limit}" in i.value for i in at.info)
    at.text_area(key="masks_text").set_value("")
    at.run()
    assert not at.exception and any("Type some text" in i.value for i in at.info)
