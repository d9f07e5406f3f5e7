"""Values the browser can send but no page offers, sent over the real websocket as any client can
(runtime/input_checks.py): NaN, infinities, floats, strings and out-of-range numbers in integer boxes (masks' N, w, g,
stride, r; generation's seed), labels no multiselect or gallery offers. Each gets a notice that quotes it, never
an exception; the widget keeps its previous value and the browser is told so; the page goes on."""
import math

from app_pages._markup import md
from tests.browser.wire import elements, session, texts, widget_id

IGNORED = "Ignored a value this page does not offer: “{value}” for “{key}”. The control keeps its previous value."


def number_boxes(msgs) -> dict[str, tuple[float, bool]]:
    """key -> (value, set_value) of the number boxes drawn."""
    return {e.id.rsplit("-", 1)[-1]: (e.value, e.set_value) for e in elements(msgs, "number_input")}


def notice(value: str, key: str) -> str:
    return IGNORED.format(value=md(value), key=md(key))


def test_masks_numbers_and_picks_no_widget_offers_get_a_notice_and_keep_their_values(server_url):
    page, query = "masks", "masks_tab=Cost&masks_cost_n=256&predict=false"     # the lab drawn at once
    with session(server_url) as s:
        first = s.run(page, query)
        assert not elements(first, "exception")
        ids = {k: widget_id(first, k) for k in ("masks_n", "masks_cost_w", "masks_cost_g", "masks_cost_s",
                                                "masks_cost_r", "masks_cost_patterns", "masks_cost_n")}
        sent = [("masks_n", "double_value", math.nan, "nan"), ("masks_cost_w", "double_value", 3.5, "3.5"),
                ("masks_cost_g", "double_value", math.inf, "inf"), ("masks_cost_s", "int_value", 10**9, "1000000000"),
                ("masks_cost_r", "string_value", "7", "7"),
                ("masks_cost_patterns", "string_array_value", ["Causal (decoder)", "<b>junk</b>"],
                 "Causal (decoder), <b>junk</b>"),
                ("masks_cost_n", "string_array_value", ["256", "banana"], "256, banana")]
        msgs = s.run(page, query, [(ids[k], field, value) for k, field, value, _ in sent])
        assert not elements(msgs, "exception"), [e.message for e in elements(msgs, "exception")]
        shown = texts(msgs)
        for key, _field, _value, quoted in sent:
            assert notice(quoted, key) in shown, (key, shown)
        boxes = number_boxes(msgs)                    # the browser is told the value each box keeps
        for key, kept in (("masks_n", 32), ("masks_cost_w", 128), ("masks_cost_g", 16), ("masks_cost_s", 128),
                          ("masks_cost_r", 3)):
            assert boxes[key] == (kept, True), (key, boxes[key])
        assert "density of A" in str(elements(msgs, "metric"))       # the page went on and drew the lab


def test_a_seed_that_is_nan_and_a_gallery_title_not_in_the_gallery_get_a_notice(server_url):
    with session(server_url) as s:
        query = "gen_tab=Generate+step+by+step&gen_strategy=top-k+sampling&gen_max_new=2"
        first = s.run("generation", query)
        assert not elements(first, "exception")
        msgs = s.run("generation", query, [(widget_id(first, "gen_seed"), "double_value", math.nan)])
        assert not elements(msgs, "exception"), [e.message for e in elements(msgs, "exception")]
        assert notice("nan", "gen_seed") in texts(msgs)
        assert number_boxes(msgs)["gen_seed"] == (0, True)
        first = s.run("coreference")
        assert not elements(first, "exception")
        msgs = s.run("coreference", "", [(widget_id(first, "coref_example"), "string_value", "Not in the gallery")])
        assert not elements(msgs, "exception"), [e.message for e in elements(msgs, "exception")]   # its callback
        assert notice("Not in the gallery", "coref_example") in texts(msgs)                        # never ran
