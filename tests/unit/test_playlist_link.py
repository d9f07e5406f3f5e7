"""A cut of the lecture playlist as the address holds it (app_pages/_playlist_link.py): prepared views by number with
runs as ranges, own views packed after "~"; what is written reads back as the same views, stays within a link's
bound for any order of the whole plan, and a garbled or hostile text is refused with a message."""
import base64
import json
import random
import zlib

import pytest

from app_pages import _pages, _playlist, _playlist_link

PAGES = [p.name for p in _pages.PAGES if p.name not in ("home", "lecture", "classroom")]
PLAN = _playlist.prepared(PAGES)
N = len(PLAN)
OWN = _playlist.make_view("Own view", "My view", "explorer", (("explorer_layer", "L2"), ("explorer_token", "it (2)")),
                          "Look at *this* head.", PAGES)


def test_the_prepared_plan_needs_no_cut():
    assert _playlist_link.dumps(PLAN, PLAN) is None


def test_a_cut_of_prepared_views_reads_as_numbers_and_ranges():
    cut = PLAN[:12] + [PLAN[14], PLAN[13]] + PLAN[19:]
    assert _playlist_link.dumps(cut, PLAN) == f"1-12.15.14.20-{N}"
    assert _playlist_link.loads(f"1-12.15.14.20-{N}", PLAN, PAGES) == cut


def test_own_views_round_trip_between_prepared_ones():
    cut = PLAN[:3] + [OWN] + PLAN[5:9] + [OWN]
    text = _playlist_link.dumps(cut, PLAN)
    assert text.startswith("1-3.x.6-9.x~")
    assert _playlist_link.loads(text, PLAN, PAGES) == cut


def test_any_order_of_the_whole_plan_with_a_few_own_views_fits_a_link():
    shuffled = PLAN[:]
    random.Random(0).shuffle(shuffled)
    text = _playlist_link.dumps(shuffled + [OWN] * 5, PLAN)
    assert len(text) <= _playlist_link.TEXT_MAX
    assert _playlist_link.loads(text, PLAN, PAGES) == shuffled + [OWN] * 5


def packed(own) -> str:
    return base64.urlsafe_b64encode(zlib.compress(json.dumps(own).encode())).decode().rstrip("=")


@pytest.mark.parametrize("text,message", [
    ("0", f"view 0 is not in the prepared plan of {N}"),
    (f"1-{N + 1}", f"view {N + 1} is not in the prepared plan of {N}"),
    ("5-3", "“5-3” names no view"),
    ("1.<b>", "“<b>” names no view"),
    ("x", "it names more own views than it holds"),
    ("1~AAAA", "its own views cannot be read"),
    ("1~" + base64.urlsafe_b64encode(zlib.compress(b" " * 200_000)).decode(), "its own views cannot be read"),
    ("x~" + packed([["Own view", "t", "secrets", "", ""]]), "“secrets” is not a page of this app"),
    ("x~" + packed([["Own view", "", "masks", "masks_tab=Cost", ""]]), "An own view: “title” is empty."),
    (".".join([f"1-{N}"] * 5), f"it holds {5 * N} views; a playlist holds 1 to 200"),
    ("1." * 1_001, "it has 2,002 characters; at most 2,000"),
], ids=["zero", "past-the-plan", "backwards", "markup", "own-missing", "garbled", "zip-bomb", "unknown-page",
        "no-title", "too-many", "too-long"])
def test_a_cut_that_cannot_be_read_says_why(text, message):
    with pytest.raises(_playlist.PlaylistError) as e:
        _playlist_link.loads(text, PLAN, PAGES)
    assert str(e.value).startswith(message), str(e.value)
