"""Screenshots of every prepared lecture view as a projector shows it, for a person to look at: each view of
assets/lecture_plan.json opened presenting on a 1280 × 720 screen, in light and dark, English and Chinese, against a
server this script starts; then contact sheets (thumbnails labelled with the view's number) so that all views fit in
a few images. Not a benchmark: `python -m bench` leaves it out (its name starts with "_").

    python -m bench._present_shots OUTDIR [--looks light-en dark-zh] [--views 1 13 32]

writes OUTDIR/<look>/NN.png (the first screen of view NN) and OUTDIR/sheet-<look>-K.png (K = 1, 2, …)."""
import argparse
import sys
import time
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

import i18n
from app_pages import _playlist, _present
from app_pages.views import lecture
from harness.server import launch, streamlit_server, wait_for_app

SCREEN = {"width": 1280, "height": 720}
LOOKS = ("light-en", "dark-en", "light-zh", "dark-zh")
THUMB = (480, 270)               # px: a screenshot's thumbnail on a sheet
SHEET_COLUMNS, SHEET_ROWS = 4, 4
LABEL_PX = 26                    # px: the strip under a thumbnail naming the view
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
MAIN = f".st-key-{_present.MAIN_KEY}"
FIGURES = ('[data-testid="stPlotlyChart"] .main-svg, [data-testid="stImage"] img, [data-testid="stVegaLiteChart"], '
           '[data-testid="stDataFrame"], [data-testid="stMarkdown"]:has(span[style])')
SETTLED = """() => document.querySelector('h1') && !document.querySelector('[data-testid="stSkeleton"]')
  && !document.querySelector('[data-testid="stStatusWidget"]')"""
TO_TOP = """() => { for (const s of ['[data-testid="stMain"]', '[data-testid="stAppViewContainer"]'])
  { const e = document.querySelector(s); if (e) e.scrollTop = 0; } window.scrollTo(0, 0); }"""


def address(view: _playlist.View, look: str) -> str:
    """The view's path as the lecture opens it in that look: values in the look's language (lang=zh), presenting
    light or dark, a predict-first view revealed (predict=false), as the lecturer shows it."""
    mode, lang = look.split("-")
    zh = i18n.catalogue(lang)
    params = [(k, zh.gettext(v) if lang != i18n.DEFAULT else v) for k, v in view.params]
    if not any(k == "predict" for k, _v in params):
        params.append(("predict", "false"))
    params += [("present", zh.gettext(mode.capitalize()))] + ([("lang", lang)] if lang != i18n.DEFAULT else [])
    return _playlist.View(view.section, view.title, view.page, tuple(params), view.note).url()


def shoot(browser, url: str, views: dict[int, _playlist.View], look: str, out: Path) -> list[Path]:
    """The first screen of each view in `look`, saved as out/<look>/NN.png; their paths, in order."""
    folder = out / look
    folder.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport=SCREEN)
    page = context.new_page()
    page.set_default_timeout(180_000)
    shots = []
    try:
        for number, view in views.items():
            page.goto(f"{url}/{address(view, look)}")
            wait_for_app(page, timeout=180_000)
            page.wait_for_function(SETTLED, timeout=180_000)
            try:
                page.wait_for_function("(s) => [...document.querySelectorAll(s)].some(e => e.getBoundingClientRect()"
                                       ".height > 0)", arg=f"{MAIN} :is({FIGURES})", timeout=20_000)
            except Exception:                          # a view whose figure waits for a button: shot as it is
                pass
            time.sleep(0.8)                            # Plotly's last relayout and the fonts
            page.evaluate(TO_TOP)
            path = folder / f"{number:02d}.png"
            page.screenshot(path=str(path))
            shots.append(path)
            print(f"{look} {number:2d} {view.page}", file=sys.stderr, flush=True)
    finally:
        context.close()
    return shots


def sheets(shots: list[Path], look: str, out: Path) -> list[Path]:
    """Contact sheets of `shots` (named NN.png), SHEET_COLUMNS × SHEET_ROWS thumbnails each, labelled with the view's
    number and the look; their paths."""
    font = ImageFont.truetype(FONT, LABEL_PX - 8)
    per = SHEET_COLUMNS * SHEET_ROWS
    made = []
    for k in range(0, len(shots), per):
        chunk = shots[k:k + per]
        rows = -(-len(chunk) // SHEET_COLUMNS)
        sheet = Image.new("RGB", (SHEET_COLUMNS * (THUMB[0] + 8) + 8, rows * (THUMB[1] + LABEL_PX + 8) + 8), "#808080")
        draw = ImageDraw.Draw(sheet)
        for i, path in enumerate(chunk):
            x = 8 + (i % SHEET_COLUMNS) * (THUMB[0] + 8)
            y = 8 + (i // SHEET_COLUMNS) * (THUMB[1] + LABEL_PX + 8)
            with Image.open(path) as shot:
                sheet.paste(shot.convert("RGB").resize(THUMB, Image.LANCZOS), (x, y + LABEL_PX))
            draw.rectangle((x, y, x + THUMB[0] - 1, y + LABEL_PX - 1), fill="#202020")
            draw.text((x + 6, y + 3), f"{int(path.stem)}  {look}", fill="#ffffff", font=font)
        made.append(out / f"sheet-{look}-{k // per + 1}.png")
        sheet.save(made[-1])
    return made


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("outdir", type=Path)
    p.add_argument("--looks", nargs="*", default=list(LOOKS), choices=LOOKS)
    p.add_argument("--views", nargs="*", type=int, default=None, help="view numbers (1-based); default all")
    args = p.parse_args(argv)
    plan = _playlist.prepared(list(lecture.pages()))
    views = {i: v for i, v in enumerate(plan, 1) if args.views is None or i in args.views}
    args.outdir.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright
    with streamlit_server(args.outdir / "streamlit.log") as url, sync_playwright() as pw:
        browser = launch(pw)
        try:
            for look in args.looks:
                for sheet in sheets(shoot(browser, url, views, look, args.outdir), look, args.outdir):
                    print(sheet)
        finally:
            browser.close()


if __name__ == "__main__":
    main()
