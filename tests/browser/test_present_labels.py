"""Presentation mode on a 1280 × 720 screen, light and dark, read in a real browser: a map of up to 64 tokens labels
every row and column (Plotly thins category ticks unless told each one) and no two neighbouring labels overlap; the
explorer outlines the picked token's row and column and writes its labels bold; numbers in cells are at least 16 px;
and every prepared lecture view's main figure lies within the first 720 px of its page."""
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from app_pages import _playlist, _present
from app_pages.views import lecture
from tests.browser.conftest import wait_for_app

MODES = ("Light", "Dark")
SCREEN = {"width": 1280, "height": 720}
MIN_TICK_PX = 7            # a tick label a projector still shows
CELL_PX = 16               # numbers in cells while presenting
MAIN = f".st-key-{_present.MAIN_KEY}"
# what can be a page's main figure (the tokenization page's main figure is its pieces, coloured spans)
FIGURES = ('[data-testid="stPlotlyChart"], [data-testid="stImage"], [data-testid="stVegaLiteChart"], '
           '[data-testid="stDataFrame"], [data-testid="stMarkdown"]:has(span[style])')
# views whose page draws no figure until the lecturer starts a measurement: nothing to place before that
NO_FIGURE_YET = {("training_lab", ()): "a model is trained first (about a minute)",
                 ("why_attention", (("why_tab", "RNN vs attention"),)): "the timing runs on a button"}

READ_MAP = """(chart) => {
  const gd = chart.querySelector('.js-plotly-plot');
  const z = gd.data.find(t => t.type === 'heatmap').z;             // nested arrays, or Plotly's packed form
  const [rows, cols] = z.shape ? String(z.shape).split(',').map(Number) : [z.length, z[0].length];
  const ticks = ax => [...chart.querySelectorAll(`.${ax}tick text`)].filter(t => t.textContent.trim()).map(t => {
    const r = t.getBoundingClientRect();
    return {text: t.textContent, size: parseFloat(getComputedStyle(t).fontSize), top: r.top, bottom: r.bottom,
            left: r.left, right: r.right, bold: !!t.querySelector('tspan[style*="bold"]')};
  });
  const cells = [...chart.querySelectorAll('.heatmaplayer .heatmap-label text')].filter(t => t.textContent.trim())
    .map(t => parseFloat(getComputedStyle(t).fontSize));
  return {rows, cols, y: ticks('y'), x: ticks('x'), cells,
          outlines: chart.querySelectorAll('.shapelayer path').length, bottom: chart.getBoundingClientRect().bottom};
}"""
TO_TOP = """() => { for (const s of ['[data-testid="stMain"]', '[data-testid="stAppViewContainer"]'])
  { const e = document.querySelector(s); if (e) e.scrollTop = 0; } window.scrollTo(0, 0); }"""


SETTLED = """() => document.querySelector('h1') && !document.querySelector('[data-testid="stSkeleton"]')
  && !document.querySelector('[data-testid="stStatusWidget"]')"""


def present(tab, server_url: str, path: str, mode: str):
    """Open path (with its query) presenting in `mode`, on the 1280 × 720 screen; wait for the run to end (its
    title drawn, no placeholder left, no run going)."""
    tab.page.goto(f"{server_url}/{path}{'&' if '?' in path else '?'}present={mode}")
    wait_for_app(tab.page, timeout=180_000)
    tab.page.wait_for_function(SETTLED, timeout=180_000)


def main_map(tab) -> dict:
    """The main figure (in presentation mode's place for it), read: its map's rows and columns, its tick labels
    with their boxes, the size of the numbers in its cells, its outlines and its bottom edge (px from the top)."""
    chart = tab.page.locator(f'{MAIN} [data-testid="stPlotlyChart"]').first
    chart.locator(".heatmaplayer").first.wait_for(timeout=120_000)
    tab.page.evaluate(TO_TOP)
    return chart.evaluate(READ_MAP)


def apart(labels: list[dict], start: str, end: str) -> list[str]:
    """Neighbouring labels whose boxes overlap along the axis (start/end: "top"/"bottom" or "left"/"right")."""
    ordered = sorted(labels, key=lambda t: t[start])
    return [f"{a['text']} / {b['text']}" for a, b in zip(ordered, ordered[1:]) if b[start] < a[end] - 0.5]


def every_label_apart(m: dict, *, rows: bool = True, cols: bool = True):
    """Each row (and column) has a label of at least MIN_TICK_PX, and no two neighbours overlap."""
    if rows:
        assert len(m["y"]) == m["rows"], f"{len(m['y'])} of {m['rows']} rows labelled"
        assert not apart(m["y"], "top", "bottom"), apart(m["y"], "top", "bottom")
        assert min(t["size"] for t in m["y"]) >= MIN_TICK_PX
    if cols:
        assert len(m["x"]) == m["cols"], f"{len(m['x'])} of {m['cols']} columns labelled"
        assert not apart(m["x"], "left", "right"), apart(m["x"], "left", "right")
        assert min(t["size"] for t in m["x"]) >= MIN_TICK_PX


@pytest.fixture
def screen(tabs):
    return tabs(**SCREEN)


@pytest.mark.parametrize("mode", MODES)
def test_the_zoomed_head_labels_every_token_and_outlines_the_picked_one(screen, server_url, mode):
    present(screen, server_url, "explorer?explorer_layer=L3", mode)           # the lecture's first view
    m = main_map(screen)
    every_label_apart(m)
    shown = [t["text"] for t in m["y"]]
    assert any(t.startswith("it ·") for t in shown) and any(t.startswith("restaurant ·") for t in shown), shown
    bold = [t["text"] for t in m["y"] + m["x"] if t["bold"]]
    assert len(bold) == 2 and all(t.startswith("it ·") for t in bold), bold      # the first pronoun, picked
    assert m["outlines"] == 2                                                    # its row and its column
    assert m["bottom"] <= SCREEN["height"]


@pytest.mark.parametrize("mode", MODES)
def test_step_by_step_weights_label_every_token_and_write_16px_numbers(screen, server_url, mode):
    present(screen, server_url, "step_by_step?steps_layer=L3", mode)
    m = main_map(screen)
    every_label_apart(m)
    assert len(m["cells"]) == m["rows"] * m["cols"] and min(m["cells"]) >= CELL_PX, sorted(set(m["cells"]))
    assert m["bottom"] <= SCREEN["height"]


LONG_PROMPT = "The restaurant refused to serve me a ham sandwich because it only cooks vegetarian food. In the end, " \
              "they just gave me"


@pytest.mark.parametrize("mode", MODES)
def test_the_generation_map_labels_every_token_apart(screen, server_url, mode):
    prompt = LONG_PROMPT.replace(" ", "+").replace(",", "%2C")
    # 30 pieces read and at most 8 written, whatever the model writes: 31–38 rows
    present(screen, server_url, f"generation?gen_tab=Generate+step+by+step&gen_prompt={prompt}&gen_max_new=8", mode)
    m = main_map(screen)
    assert m["rows"] >= 30                         # the walk counted 33 overlapping labels on a map this size
    every_label_apart(m)
    assert m["bottom"] <= SCREEN["height"]


@pytest.mark.parametrize("mode", MODES)
def test_the_minimal_pair_grid_labels_every_head_and_token(screen, server_url, mode):
    present(screen, server_url, "coreference?coref_tab=Minimal+pairs", mode)
    m = main_map(screen)
    every_label_apart(m)
    assert [t["text"] for t in m["y"]] == [f"L{lay} H{h}" for lay in range(4) for h in range(4)]
    assert m["bottom"] <= SCREEN["height"]


FIRST_FIGURE = """([main, figures]) => {
  const seen = e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const place = document.querySelector(main);
  const figure = place && [...place.querySelectorAll(figures)].find(seen);
  return figure ? {top: figure.getBoundingClientRect().top, bottom: figure.getBoundingClientRect().bottom}
                : {top: null, bottom: null};
}"""


@pytest.mark.parametrize("half", [0, 1])
def test_every_prepared_views_main_figure_is_on_the_first_screen(screen, server_url, half):
    """One browser page walks half of the prepared views (the two halves run side by side on CI's two workers),
    light and dark in turn; a view that asks to predict first is opened revealed (predict=false), as the lecturer
    shows it."""
    views = _playlist.prepared(list(lecture.pages()))
    low = []
    for i, view in enumerate(views, 1):
        if i % 2 != half:
            continue
        path = view.url() + ("" if any(k == "predict" for k, _v in view.params) else
                             ("&" if view.params else "?") + "predict=false")
        present(screen, server_url, path, MODES[i % 2])
        try:
            screen.page.wait_for_function("(s) => [...document.querySelectorAll(s)].some(e => e.getBoundingClientRect()"
                                          ".height > 0)", arg=f"{MAIN} :is({FIGURES})", timeout=20_000)
        except PlaywrightTimeout:
            pass                                       # none: said below
        screen.page.evaluate(TO_TOP)
        box = screen.page.evaluate(FIRST_FIGURE, [MAIN, FIGURES])
        if (view.page, view.params) in NO_FIGURE_YET:
            assert box["top"] is None, f"{view.title}: a figure now; check that it fits and drop the exception"
        elif box["top"] is None:
            low.append(f"{i} {view.title}: no main figure in presentation mode's place for it")
        elif box["bottom"] > SCREEN["height"]:
            low.append(f"{i} {view.title}: {box['top']:.0f}–{box['bottom']:.0f} px")
    assert not low, "main figures not on the first screen:\n" + "\n".join(low)


TICKS = """(chart) => [...chart.querySelectorAll('.ytick text')].sort((a, b) => a.getBoundingClientRect().top
  - b.getBoundingClientRect().top).map(t => t.textContent)"""
CELLS = """(chart) => [...chart.querySelectorAll('.heatmaplayer .heatmap-label text')].map(t => t.textContent)"""
ANIMAL = "The animal didn't cross the street because it was too tired."


def chart_of(tab, key: str):
    """The Plotly chart drawn with `key`, once drawn."""
    chart = tab.page.locator(f'.st-key-{key} [data-testid="stPlotlyChart"]')
    chart.locator(".main-svg").first.wait_for(timeout=120_000)
    return chart


def test_next_token_bars_are_ranked_with_a_hash_not_a_position(screen, server_url):
    present(screen, server_url, "generation?gen_prompt=The+restaurant+refused+to+serve+me+a+ham", "Light")
    ranks = chart_of(screen, "next_bars").evaluate(TICKS)
    assert len(ranks) >= 5 and all(t.startswith(f"#{i} ") for i, t in enumerate(ranks, 1)), ranks
    assert not any("·" in t for t in ranks), ranks                  # "·N" is a position, and a rank is not one


def test_summaries_rows_are_named_heads_with_no_index(screen, server_url):
    present(screen, server_url, "explorer?explorer_tab=Summaries", "Dark")
    rows = chart_of(screen, "explorer_sum_rows").evaluate(TICKS)
    assert rows == [f"L{lay} H{h}" for lay in range(4) for h in range(4)], rows


def test_one_pronoun_labels_no_head_coreference_and_the_page_says_why(screen, server_url):
    text = ANIMAL.replace(" ", "+").replace("'", "%27")
    present(screen, server_url, f"explorer?explorer_text={text}&explorer_tab=Attends+to+%26+statistics", "Light")
    cells = chart_of(screen, "explorer_statmap").evaluate(CELLS)
    assert len(cells) == 16 and not any("coref" in c for c in cells), cells
    said = screen.page.get_by_text("No head is labelled coreference on this text: it has 1 pronoun with an earlier "
                                   "word, and one text needs 3 before a head's habit shows.")
    said.wait_for(timeout=60_000)


READ_PANELS = """(chart) => {
  const gd = chart.querySelector('.js-plotly-plot');
  const ids = gd.data.filter(t => t.type === 'heatmap').map(t => t.xaxis || 'x');
  const ticks = cls => [...chart.querySelectorAll(`.${cls} text`)].filter(t => t.textContent.trim()).map(t => {
    const r = t.getBoundingClientRect();
    return {text: t.textContent, size: parseFloat(getComputedStyle(t).fontSize), top: r.top, bottom: r.bottom,
            left: r.left, right: r.right};
  });
  const z = gd.data[0].z;
  const rows = z.shape ? Number(String(z.shape).split(',')[0]) : z.length;
  return {rows, y: ticks('ytick'), panels: ids.map(id => ticks(`${id}tick`)),
          bottom: chart.getBoundingClientRect().bottom};
}"""


@pytest.mark.parametrize("mode", MODES)
def test_heads_side_by_side_label_every_token_of_every_head(screen, server_url, mode):
    present(screen, server_url, "step_by_step?steps_tab=Multi-head", mode)          # the lecture's multi-head view
    chart = screen.page.locator(f'{MAIN} [data-testid="stPlotlyChart"]').first
    chart.locator(".heatmaplayer").first.wait_for(timeout=120_000)
    screen.page.evaluate(TO_TOP)
    m = chart.evaluate(READ_PANELS)
    assert len(m["panels"]) >= 2 and m["rows"] >= 15, (len(m["panels"]), m["rows"])
    every_label_apart({"rows": m["rows"], "y": m["y"], "cols": 0, "x": []}, cols=False)
    for i, x in enumerate(m["panels"]):
        assert len(x) == m["rows"], f"head {i}: {len(x)} of {m['rows']} columns labelled"
        assert not apart(x, "left", "right"), apart(x, "left", "right")
        assert min(t["size"] for t in x) >= MIN_TICK_PX
    assert m["bottom"] <= SCREEN["height"]


CHAIN = """(chart) => {
  const box = e => { const r = e.getBoundingClientRect();
                     return {text: e.textContent, top: r.top, bottom: r.bottom, left: r.left, right: r.right}; };
  return {titles: [...chart.querySelectorAll('.g-ytitle text, .g-y2title text, .gtitle')].map(box),
          upper: [...chart.querySelectorAll('.xtick text')].map(box),
          rows: [...chart.querySelectorAll('.annotation-text')].map(box)};
}"""


def overlapping(a: dict, b: dict) -> bool:
    return a["left"] < b["right"] - 0.5 and b["left"] < a["right"] - 0.5 and a["top"] < b["bottom"] - 0.5 \
        and b["top"] < a["bottom"] - 0.5


@pytest.mark.parametrize("mode", MODES)
def test_the_chain_rules_axis_titles_and_slanted_pieces_overlap_nothing(screen, server_url, mode):
    view = next(v for v in _playlist.prepared(list(lecture.pages())) if ("gen_tab", "Sentence probability")
                in v.params)                                                  # the lecture's chain-rule view
    present(screen, server_url, view.url(), mode)
    chart = screen.page.locator(f'{MAIN} [data-testid="stPlotlyChart"]').first
    chart.locator(".xtick text").first.wait_for(timeout=120_000)
    screen.page.evaluate(TO_TOP)
    m = chart.evaluate(CHAIN)
    assert len(m["titles"]) == 3 and len(m["rows"]) == 2 and m["upper"], m          # two rows of bars
    clashes = [(a["text"], b["text"]) for i, a in enumerate(m["titles"]) for b in m["titles"][i + 1:]
               if overlapping(a, b)]
    clashes += [(a["text"], b["text"]) for a in m["upper"] for b in m["rows"][1:] if overlapping(a, b)]
    assert not clashes, clashes


CELLS_INSIDE = """(chart) => {
  const gd = chart.querySelector('.js-plotly-plot');
  const t = gd.data.find(d => d.type === 'heatmap');
  const xa = gd._fullLayout.xaxis, cols = (t.z.shape ? String(t.z.shape).split(',').map(Number)[1] : t.z[0].length);
  const cell = xa._length / cols;                                     // px across one cell
  return [...chart.querySelectorAll('.heatmaplayer .heatmap-label text')].filter(e => e.textContent.trim())
    .map(e => ({text: e.textContent, width: e.getBBox().width, cell, size: parseFloat(getComputedStyle(e).fontSize)}));
}"""


@pytest.mark.parametrize("mode", MODES)
def test_the_worked_examples_q_k_v_numbers_stay_inside_their_cells(screen, server_url, mode):
    """Q, K and V side by side in three columns: each map's numbers are written for its third of the page, inside
    their cells and still at least 16 px (sized for the whole page they overflowed into the next cell)."""
    present(screen, server_url, "step_by_step?steps_tab=The+lecture%27s+example", mode)
    charts = screen.page.locator(f'{MAIN} [data-testid="stPlotlyChart"]')
    charts.nth(2).locator(".heatmaplayer").first.wait_for(timeout=120_000)
    for k in range(3):
        numbers = charts.nth(k).evaluate(CELLS_INSIDE)
        assert len(numbers) == 6                                           # (2, 3): every number written
        for n in numbers:
            assert n["width"] <= n["cell"] and n["size"] >= CELL_PX, n
