"""A click on the explorer's zoomed head brings that cell into "Why this weight" from what the zoom was drawn with:
the row word's first piece as the query, the column word's piece that query weighs most as the key; no model runs."""
from unittest import mock

import numpy as np

from app_pages.views import explorer_why

# three shown words made of pieces 0 | 1, 2 | 3, 4, 5 (a zoom in whole words)
PIECES = ((0,), (1, 2), (3, 4, 5))


def _click(x: str, y: str, weights: np.ndarray) -> dict:
    """Session state after a click on the zoom cell labelled (x, y); the model's runs are made to fail."""
    state = {"explorer_zoom": {"selection": {"points": [{"x": x, "y": y}]}}}
    with mock.patch.object(explorer_why, "st") as st, \
            mock.patch.object(explorer_why._head_runs, "qkv_run", side_effect=AssertionError("the model ran")):
        st.session_state = state
        explorer_why.pick_cell(PIECES, weights)
    return state


def test_a_click_picks_the_query_words_first_piece_and_the_key_piece_it_weighs_most():
    weights = np.full((6, 6), 0.01)
    weights[1, [3, 4, 5]] = [0.1, 0.7, 0.2]          # piece 1 (the query word's first) weighs piece 4 most
    weights[2, 3] = 0.9                               # the word's second piece would pick 3: not the query
    state = _click("c·2", "b·1", weights)
    assert (state["explorer_why_q"], state["explorer_why_k"]) == (1, 4)
    assert state["explorer_tab"] == "Why this weight"


def test_a_click_outside_the_zoom_picks_nothing():
    state = _click("d·7", "b·1", np.eye(6))
    assert "explorer_why_q" not in state and "explorer_tab" not in state
