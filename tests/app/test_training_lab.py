"""The training lab page: the lesson and its bounded settings with the time estimate, a refused setting with its
message, and a short real run through the queue played back (metrics, scrubber, curves, the snapshot drawn from
the run's own file), then opened in the explorer as a session model."""
import time

import numpy as np
import pytest

from app_pages import _resources
from model.lab import lessons
from model.lab import run as lab_run
from tests.app.conftest import open_link, open_page, plotly_array, plotly_chart, switch_page
from tests.app.test_chinese import english_left, interface_strings


@pytest.fixture
def at():
    page = open_page("training_lab.py", timeout=120)
    assert not page.exception, [e.message for e in page.exception]
    return page


def test_default_view_offers_the_induction_lesson_with_its_estimate(at):
    assert at.selectbox(key="lab_lesson").value == "induction"
    assert at.number_input(key="lab_layers").value == 2 and at.number_input(key="lab_heads").value == 1
    estimate = lessons.estimate_seconds(lessons.LESSONS["induction"], lessons.LESSONS["induction"].defaults)
    assert any(f"about {estimate:.0f} s on one CPU thread" in c.value for c in at.caption)
    assert not at.button(key="lab_start").disabled and at.button(key="lab_stop").disabled


def test_a_setting_out_of_bounds_is_refused_with_its_reason(at):
    at.number_input(key="lab_heads").set_value(5).run()
    at.select_slider(key="lab_d_model").set_value(48).run()
    assert [e.value for e in at.error] == ["d_model = 48 does not split evenly across 5 heads."]
    assert at.button(key="lab_start").disabled


def test_another_lesson_brings_its_own_settings(at):
    at.selectbox(key="lab_lesson").set_value("pronoun").run()
    assert at.selectbox(key="lab_mask").value == "full" and at.number_input(key="lab_steps").value == \
        lessons.LESSONS["pronoun"].defaults.steps


def test_a_short_run_plays_back_and_opens_in_the_explorer(at):
    at.selectbox(key="lab_lesson").set_value("previous").run()
    at.select_slider(key="lab_d_model").set_value(16).run()
    at.number_input(key="lab_steps").set_value(10).run()
    at.button(key="lab_start").click().run()
    job = at.session_state["lab_run"]["job"]
    assert job.owner.endswith(":lab")                      # the session's other heavy jobs do not replace it
    deadline = time.monotonic() + 240
    while not job.finished and time.monotonic() < deadline:
        job.wait(1)
    at.run()
    assert job.state == "done" and not at.exception, [e.message for e in at.exception]
    folder = at.session_state["lab_run"]["folder"]
    history = lab_run.saved_state(folder)["snapshots"]
    assert at.select_slider(key="lab_frame").options == [str(s["step"]) for s in history] and len(history) == 11
    assert at.select_slider(key="lab_frame").value == 10
    best = np.max(history[-1]["scores"]["previous"])
    assert any(m.value == f"{best:.2f}" for m in at.metric)
    at.select_slider(key="lab_frame").set_value(4).run()
    at4 = next(s for s in history if s["step"] == 4)                  # the figures follow the scrubber
    assert [m.value for m in at.metric] == [f"{at4['task']:.2f}", *(f"{np.max(at4['scores'][k]):.2f}"
                                                                  for k in ("previous", "sink"))]
    assert any(c.value == "At step 4 of 10:" for c in at.caption)
    image = plotly_chart(at, "lab_snapshot")
    assert "step 4 " in image["layout"]["title"]["text"]
    loss = plotly_chart(at, "lab_loss")
    assert np.allclose(plotly_array(loss["data"][0]["y"]), [x for s in history for x in s["losses"]], atol=1e-4)
    assert {b.label for b in at.get("download_button")} >= {"Snapshots (JSON)", "Model (safetensors)"}
    at.sidebar.radio(key="lang").set_value("zh").run()               # the playback speaks Chinese too
    strings, typed = interface_strings(at)
    assert not at.exception and english_left(strings, typed) == {}
    at.sidebar.radio(key="lang").set_value("en").run()
    at.button(key="lab_open").click().run()
    name = at.session_state["text_model"]
    assert name.startswith("lab_previous_") and (_resources.SESSION_MODELS / f"{name}.safetensors").is_file()
    assert any(link.label == "Open in the explorer" for link in at.get("page_link"))
    assert any(name in c.value for c in at.caption)
    switch_page(at, "explorer").run()                   # where the link goes
    assert not at.exception, [e.message for e in at.exception]
    assert at.title[0].value == "Attention explorer" and at.sidebar.selectbox(key="text_model").value == name
    assert any(f"model **{name}**, 1 layers × 2 heads" in e.label for e in at.expander)


def test_a_link_opens_the_lesson_with_its_settings_and_names_a_stale_one():
    at = open_link("training_lab.py", lab_lesson="Sorting", lab_heads="4", lab_steps="300", lab_d_model="32")
    assert at.selectbox(key="lab_lesson").value == "sort" and at.number_input(key="lab_heads").value == 4
    assert at.number_input(key="lab_steps").value == 300 and at.select_slider(key="lab_d_model").value == 32
    assert at.number_input(key="lab_layers").value == lessons.LESSONS["sort"].defaults.n_layers
    stale = open_link("training_lab.py", lab_heads="99")
    assert any("the heads “99”" in i.value for i in stale.info)
    assert stale.number_input(key="lab_heads").value == lessons.LESSONS["induction"].defaults.n_heads
