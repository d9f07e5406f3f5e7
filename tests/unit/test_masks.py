"""Truth tables of every mask pattern, Swin windows, receptive fields against brute-force reachability."""
import numpy as np
import pytest

from model.analysis import reach
from model.engine import masks
from model.engine.errors import InputError


def brute(n, rule):
    return np.array([[bool(rule(i, j)) for j in range(n)] for i in range(n)])


def test_causal_mask_blocks_future_positions():
    m = masks.causal(9)
    assert not np.triu(m, 1).any() and m[np.tril_indices(9)].all()


def test_full_mask_allows_everything():
    assert masks.full(7).all()


@pytest.mark.parametrize("n,w", [(10, 0), (10, 2), (17, 5), (6, 9)])
def test_sliding_window_is_exactly_the_band(n, w):
    assert np.array_equal(masks.sliding_window(n, w), brute(n, lambda i, j: abs(i - j) <= w))
    assert np.array_equal(masks.sliding_window(n, w, causal=True), brute(n, lambda i, j: 0 <= i - j <= w))


@pytest.mark.parametrize("n,w,d", [(20, 2, 2), (23, 3, 3), (12, 1, 1)])
def test_dilated_window_keeps_every_dth_key(n, w, d):
    expect = brute(n, lambda i, j: abs(i - j) <= w * d and (j - i) % d == 0)
    assert np.array_equal(masks.dilated_window(n, w, d), expect)


def test_chosen_global_rows_and_columns_are_all_true():
    m = masks.global_tokens(16, positions=(0, 7), width=1)
    assert m[[0, 7]].all() and m[:, [0, 7]].all()
    others = [i for i in range(16) if i not in (0, 7)]
    assert np.array_equal(m[np.ix_(others, others)], masks.sliding_window(16, 1)[np.ix_(others, others)])


def test_extra_global_tokens_are_added_in_front_of_the_text():
    m = masks.extra_global_tokens(20, n_global=3, width=2)
    assert m.shape == (23, 23)                                        # N grows to N + g
    assert m[:3].all() and m[:, :3].all()                             # the added tokens see and are seen by all
    assert np.array_equal(m[3:, 3:], masks.sliding_window(20, 2))     # the text's 20 tokens keep their window


def test_extra_and_chosen_global_tokens_differ_in_shape_and_in_pairs():
    """Textbook 12.9: chosen global tokens make g of the N tokens global (N × N); extra global tokens add g new
    tokens (N + g) × (N + g). Counted by hand: a window band over M tokens, w each side, holds M(2w+1) − w(w+1)
    pairs. Extra: the N text tokens' band, g full rows of N + g, and g columns over the N text rows. Chosen (the
    first g): every pair but those between two of the other M = N − g tokens outside each other's window."""
    n, g, w = 32, 2, 1

    def band(m):
        return m * (2 * w + 1) - w * (w + 1)

    extra, chosen = masks.build("extra_global", n, n_global=g, width=w), masks.build("global", n, positions=(0, 1),
                                                                                      width=w)
    assert extra.shape == (n + g, n + g) and chosen.shape == (n, n)
    pairs = masks.allowed_pairs("extra_global", n, n_global=g, width=w)
    assert pairs == int(extra.sum()) == band(n) + 2 * g * n + g * g
    m = n - g
    assert masks.allowed_pairs("global", n, positions=(0, 1), width=w) == int(chosen.sum()) == n * n - (m * m - band(m))
    assert (int(extra.sum()), int(chosen.sum())) == (226, 212)
    assert not np.array_equal(extra[g:, g:], chosen)                  # chosen: words 0, 1 are global
    assert chosen[:g].all() and not extra[g:g + g].all()              # extra: the text's first words are not


def test_a_pattern_states_the_tokens_it_adds():
    assert [k for k, p in masks.PATTERNS.items() if p.added()] == ["extra_global"]
    assert masks.PATTERNS["extra_global"].side(30, n_global=4) == 34 and masks.PATTERNS["global"].side(30) == 30
    assert masks.build("bigbird", 30, width=1, n_global=2, per_row=1).shape == (30, 30)   # BigBird-ITC: chosen


def test_causal_global_sees_only_the_past():
    m = masks.global_tokens(12, positions=(4,), width=1, causal=True)
    assert not np.triu(m, 1).any() and m[4, :5].all() and m[4:, 4].all()


def test_random_is_seeded_has_diagonal_and_r_keys_per_row():
    a, b = masks.random_pattern(40, 3, seed=1), masks.random_pattern(40, 3, seed=1)
    assert np.array_equal(a, b) and not np.array_equal(a, masks.random_pattern(40, 3, seed=2))
    assert np.diag(a).all() and set(a.sum(1)) <= {1, 2, 3, 4} and a.sum() > 2.5 * 40


def test_strided_is_local_plus_every_sth():
    assert np.array_equal(masks.strided(30, 4), brute(30, lambda i, j: abs(i - j) < 4 or (i - j) % 4 == 0))


def test_block_local_and_padding():
    assert np.array_equal(masks.block_local(10, 3), brute(10, lambda i, j: i // 3 == j // 3))
    p = masks.padding(10, 6)
    assert p[:, :6].all() and not p[:, 6:].any()


@pytest.mark.parametrize("key", [k for k, p in masks.PATTERNS.items() if p.can_be_causal])
def test_causal_version_is_the_pattern_below_the_diagonal(key):
    n = 24
    m = masks.build(key, n)
    assert np.array_equal(masks.build(key, n, causal=True), m & np.tril(np.ones(m.shape, bool)))


@pytest.mark.parametrize("key", list(masks.PATTERNS))
def test_allowed_pairs_and_density_match_the_matrix(key):
    n = 48
    m = masks.build(key, n)
    side = n + masks.PATTERNS[key].added()
    assert m.shape == (side, side) and m.dtype == bool and m.any()
    assert masks.allowed_pairs(key, n) == m.sum()
    assert reach.density(m) == pytest.approx(m.sum() / side**2)
    assert masks.PATTERNS[key].explanation and masks.PATTERNS[key].title


@pytest.mark.parametrize("key", list(masks.PATTERNS))
@pytest.mark.parametrize("n", [1, 9, 64])
@pytest.mark.parametrize("causal", [False, True])
def test_closed_form_row_counts_match_the_matrix(key, n, causal):
    other = dict(width=3, dilation=3, positions=(0, 5, 40), n_global=3, per_row=5, stride=5, block=6, length=20,
                 grid_w=8 if n % 8 == 0 else 1, window=4 if n % 8 == 0 else 1, shift=2 if n % 8 == 0 else 0)
    for params in ({}, {k: v for k, v in other.items() if k in masks.PATTERNS[key].defaults()}):
        if key == "swin" and n % params.get("grid_w", 8):
            continue
        expect = masks.build(key, n, causal, **params).sum(1)
        assert np.array_equal(masks.row_counts(key, n, causal, **params), expect)


def test_allowed_pairs_grow_as_their_formulas_say():
    n, w = 4096, 16
    assert masks.allowed_pairs("full", n) == n * n
    assert masks.allowed_pairs("causal", n) == n * (n + 1) // 2
    assert masks.allowed_pairs("window", n, width=w) == n * (2 * w + 1) - w * (w + 1)


def test_unknown_pattern_is_refused():
    with pytest.raises(InputError, match="unknown mask pattern"):
        masks.build("nope", 4)


# ---- Swin windows -------------------------------------------------------------------------------
def swin_official(h, w, win, shift):
    """Swin's own recipe: roll the grid by -shift, cut windows, keep pairs with the same region label."""
    pos = np.arange(h * w).reshape(h, w)
    label = np.zeros((h, w), int)
    if shift:
        cnt = 0
        for hs in (slice(0, -win), slice(-win, -shift), slice(-shift, None)):
            for ws in (slice(0, -win), slice(-win, -shift), slice(-shift, None)):
                label[hs, ws] = cnt
                cnt += 1
    rolled = np.roll(pos, (-shift, -shift), axis=(0, 1))
    m = np.zeros((h * w, h * w), bool)
    for r in range(0, h, win):
        for c in range(0, w, win):
            ids, labs = rolled[r:r + win, c:c + win].ravel(), label[r:r + win, c:c + win].ravel()
            m[np.ix_(ids, ids)] = labs[:, None] == labs[None, :]
    return m


@pytest.mark.parametrize("h,w,win", [(4, 4, 2), (8, 8, 4), (6, 9, 3)])
def test_swin_windows_partition_the_grid(h, w, win):
    m = masks.swin_window_mask(h, w, win)
    assert np.array_equal(m, m.T) and np.array_equal(m @ m > 0, m)    # an equivalence: blocks
    assert set(m.sum(1)) == {win * win}
    assert np.array_equal(m, swin_official(h, w, win, 0))


@pytest.mark.parametrize("h,w,win,shift", [(4, 4, 2, 1), (8, 8, 4, 2), (6, 9, 3, 1), (8, 8, 4, 3)])
def test_shifted_swin_windows_match_the_cyclic_shift_and_cross_borders(h, w, win, shift):
    shifted, plain = masks.swin_window_mask(h, w, win, shift), masks.swin_window_mask(h, w, win)
    assert np.array_equal(shifted, swin_official(h, w, win, shift))
    assert (shifted & ~plain).any()                                   # pairs across the old window borders
    assert np.array_equal(shifted @ shifted > 0, shifted)


def test_swin_refuses_bad_shift():
    with pytest.raises(ValueError, match="shift"):
        masks.swin_window_mask(4, 4, 2, shift=2)


# ---- receptive field ---------------------------------------------------------------------------
def reach_brute(mask, k):
    """Breadth-first: which inputs j reach output i within k layers (a token always keeps itself)."""
    n = len(mask)
    out = np.zeros((n, n), bool)
    for i in range(n):
        frontier = {i}
        for _ in range(k):
            frontier |= {j for f in frontier for j in np.flatnonzero(mask[f])}
        out[i, list(frontier)] = True
    return out


@pytest.mark.parametrize("key,params", [("window", dict(width=1)), ("dilated", dict(width=1, dilation=3)),
                                        ("random", dict(per_row=1, seed=3)), ("strided", dict(stride=3)),
                                        ("causal", {}), ("block_local", dict(block=4))])
def test_receptive_field_equals_brute_force_reachability(key, params):
    m = masks.build(key, 18, **params)
    for k in (0, 1, 2, 3, 5):
        assert np.array_equal(reach.receptive_field(m, k), reach_brute(m, k)), k


@pytest.mark.parametrize("key,params", [("window", dict(width=2)), ("window", dict(width=1)),
                                        ("extra_global", dict(width=1, n_global=1)), ("strided", dict(stride=4)),
                                        ("dilated", dict(width=2, dilation=2)), ("random", dict(per_row=1)),
                                        ("causal", {}), ("full", {}), ("block_local", dict(block=5))])
def test_layers_to_connect_is_the_first_k_that_reaches_the_closure(key, params):
    m = masks.build(key, 21, **params)
    c = reach.layers_to_connect(m)
    closure = reach_brute(m, 21)
    assert np.array_equal(reach_brute(m, c.layers), closure)
    assert c.layers == 0 or not np.array_equal(reach_brute(m, c.layers - 1), closure)
    assert c.everything == closure.all() and c.reachable == pytest.approx(closure.mean())


def test_window_needs_n_over_w_layers_and_a_global_token_two():
    assert reach.layers_to_connect(masks.sliding_window(21, 2)).layers == 10
    assert reach.layers_to_connect(masks.extra_global_tokens(21, 1, 2)).layers == 2
    assert reach.layers_to_connect(masks.global_tokens(21, (0,), 2)).layers == 2
    assert not reach.layers_to_connect(masks.block_local(21, 7)).everything
