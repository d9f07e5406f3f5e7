"""The lecture in one tab (AppTest): Open this view runs the view's page in this session with exactly its inputs, the
bar steps to the next view (an input the view before set is forgotten) and back to the list; the lecturer's cut
lives in the address (lecture_cut=), a link's cut opens as the playlist and a garbled one gets a notice; several
views removed at once and a view moved keep the current view in sight; a walked view's address (a reload) brings
its bar back on the same step of the same cut, and an address whose step names another page brings none. (The
browser tests run the same at 1280 × 720: tests/browser/test_lecture_present.py, test_lecture_cut.py.)"""
from app_pages import _playlist
from app_pages.views import lecture
from tests.app.conftest import infos, open_link, switch_page

PLAN = _playlist.prepared(list(lecture.pages()))
N = len(PLAN)
STEP = 5                                    # views 5 and 6: one page, each setting an input the other leaves alone


def shown_view(at) -> str:
    return next(c.value for c in at.caption if c.value.startswith("View "))


def test_a_view_opens_in_this_session_and_the_bar_steps_on_with_its_own_inputs():
    assert PLAN[STEP - 1].page == PLAN[STEP].page == "positional"
    at = open_link("lecture.py", lecture_step=str(STEP), present="Light")
    at.button(key="lecture_open").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert dict(at.query_params) == {"order_positions": "on", "present": "Light", "lecture_walk": str(STEP)}
    assert any(m.value.startswith(f"**{STEP}/{N}**") for m in at.markdown)              # the bar
    switch_page(at, "positional")                  # AppTest runs the page it was sent to, not where switch_page went
    at.radio(key="order_positions").set_value("off")
    at.selectbox(key="order_layer").set_value(2).run()                      # the lecturer plays with the view
    at.button(key="walk_next").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert dict(at.query_params) == {"pos_tab": "Learned vs relative", "present": "Light",    # view 5's input gone
                                     "lecture_walk": str(STEP + 1)}
    at.button(key="walk_prev").click().run()                                 # view 5 again: its inputs exactly
    assert at.radio(key="order_positions").value == "on" and at.selectbox(key="order_layer").value == 0
    assert dict(at.query_params) == {"order_positions": "on", "present": "Light", "lecture_walk": str(STEP)}
    at.button(key="walk_list").click().run()
    assert shown_view(at).startswith(f"View {STEP} of {N}")
    assert at.query_params["present"] == "Light" and at.query_params["lecture_step"] == str(STEP)


def test_a_links_cut_is_the_playlist_and_a_garbled_one_gets_a_notice():
    at = open_link("lecture.py", lecture_cut="3.1")
    assert shown_view(at).startswith("View 1 of 2") and at.subheader[0].value.replace("\\", "") == PLAN[2].title
    assert at.query_params["lecture_cut"] == "3.1"
    at = open_link("lecture.py", lecture_cut="99")
    assert (f"The link's cut of the playlist was not read (view 99 is not in the prepared plan of {N}); showing "
            "the prepared plan.") in [i.replace("\\", "") for i in infos(at)]
    assert shown_view(at).startswith(f"View 1 of {N}") and "lecture_cut" not in at.query_params


def test_removing_several_views_keeps_the_current_one_and_a_move_follows_it():
    at = open_link("lecture.py", lecture_step=str(STEP))
    at.multiselect(key="lecture_remove_picks").set_value([0, STEP - 1, STEP + 1]).run()
    at.button(key="lecture_remove_picked").click().run()
    # the current view was removed: the view after it takes its place, one view earlier (view 1 went too)
    assert shown_view(at).startswith(f"View {STEP - 1} of {N - 3}")
    assert at.subheader[0].value.replace("\\", "") == PLAN[STEP].title
    assert at.query_params["lecture_cut"] == f"2-4.6.8-{N}"
    assert "Removed 3 views\\." in [s.value for s in at.success]
    at.button(key="lecture_earlier").click().run()
    assert shown_view(at).startswith(f"View {STEP - 2} of {N - 3}")
    assert at.subheader[0].value.replace("\\", "") == PLAN[STEP].title
    assert at.query_params["lecture_cut"] == f"2-3.6.4.8-{N}"
    at.button(key="lecture_reset").click().run()
    assert shown_view(at).startswith(f"View 1 of {N}") and "lecture_cut" not in at.query_params


def test_a_walked_views_address_brings_its_bar_back_on_the_same_step_of_the_cut():
    # the cut "3.5-6": its step 2 is the prepared plan's view 5 (positional), as a reload of that view finds it
    at = open_link("positional.py", order_positions="on", present="Light", lecture_walk="2", lecture_cut="3.5-6")
    assert any(m.value.startswith("**2/3**") for m in at.markdown), [m.value for m in at.markdown][:5]
    at.button(key="walk_next").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert any(m.value.startswith("**3/3**") for m in at.markdown)
    assert dict(at.query_params) == {"pos_tab": "Learned vs relative", "present": "Light", "lecture_walk": "3",
                                     "lecture_cut": "3.5-6"}
    at = open_link("positional.py", lecture_walk="1", lecture_cut="3.5-6")     # step 1 is step_by_step's view
    assert not any(m.value.startswith("**1/3**") for m in at.markdown)
    assert "lecture_walk" not in at.query_params and "lecture_cut" not in at.query_params
    for garbled in ("²", "9" * 5000, "-1", "0"):                                # no bar, no error
        at = open_link("positional.py", lecture_walk=garbled)
        assert not any("/" in m.value and m.value.startswith("**") for m in at.markdown), garbled
