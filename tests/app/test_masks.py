"""AppTest of the masks page: the drawn masks, densities, layer counts, the live run and the measured cost
are the ones model/ computes for the chosen settings; the trained sparse model reads any text as readable
BPE pieces and its evaluation caption states its shipped metrics."""

import re

import numpy as np
import pytest

from model import jobs
from model.analysis import reach
from model.engine import masks
from tests.app.conftest import open_page
from tests.app.conftest import plotly_chart as chart
from tests.app.conftest import trace_z as z_of


@pytest.fixture(scope="module")
def at():
    page = open_page("masks.py", timeout=120)
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


def test_changing_pattern_redraws_mask_difference_and_reach(at):
    at.number_input(key="masks_n").set_value(40)
    at.selectbox(key="masks_A_pattern").set_value("dilated")
    at.run()
    at.number_input(key="masks_A_width").set_value(3)
    at.run()
    assert not at.exception
    a, b = masks.dilated_window(40, 3, 2), masks.extra_global_tokens(40, 1, 2)
    np.testing.assert_array_equal(z_of(chart(at, "masks_plot_A")["data"][0]), a)
    np.testing.assert_array_equal(z_of(chart(at, "masks_plot_diff")["data"][0]),
                                  (a & ~b) * 1 + (b & ~a) * 2 + (a & b) * 3)
    assert metric(at, "pairs that differ") == f"{int((a != b).sum()):,}"
    show(at, "Receptive field")
    np.testing.assert_array_equal(z_of(chart(at, "masks_reach_A")["data"][0]), reach.receptive_field(a, 2))
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
    mask = masks.extra_global_tokens(n, 1, 1)
    z = z_of(chart(at, "masks_live_masked")["data"][0])
    assert z.shape == (n, n) and (z[~mask] == 0).all()
    np.testing.assert_allclose(z.sum(1), 1.0, atol=1e-4)
    full = z_of(chart(at, "masks_live_full")["data"][0])
    assert (full[~mask] > 0).any()                                  # full attention does use the blocked pairs


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
    table = at.dataframe[0].value
    assert len(table) == 4 and set(table["method"]) == {"dense_masked", "sparse"}
    assert (table["time (ms)"] > 0).all()
    assert chart(at, "masks_time")["data"] and chart(at, "masks_mem")["data"]


def test_a_full_queue_of_heavy_jobs_says_the_server_is_busy(at, monkeypatch):
    full = jobs.Queue(slots=1, waiting=0, memory_mb=None)
    held = full.reserve(owner="another session")
    monkeypatch.setattr(jobs, "QUEUE", full)
    show(at, "Cost")                                                   # whichever test ran before on this worker
    at.button(key="masks_cost_go").click()
    at.run(timeout=60)
    held.finish()
    assert not at.exception
    assert "The server is busy: 0 heavy jobs are waiting and 1 running. Try again in a minute." in [
        w.value for w in at.warning]
    assert "At most 1 heavy job runs at once on this server, for all its users" in " ".join(c.value for c in at.caption)


def test_a_measurement_over_the_memory_bound_says_so(at, monkeypatch):
    monkeypatch.setattr(jobs, "QUEUE", jobs.Queue(slots=1, waiting=4, memory_mb=1200))
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
    assert f"window ±{m['pattern_width']} plus {m['pattern_global_tokens']} global token" in caption
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
