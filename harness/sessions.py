"""Many browser sessions at once against one server, each on its own page with its own text; used by
the concurrency test (10 sessions) and the benchmark (more)."""
import re
from collections import Counter
from pathlib import Path

from app_pages import _pages
from harness.server import wait_for_app

# (page file, accessible name of its free-text box)
BOXES = [("explorer.py", "Text"), ("coreference.py", "Text"), ("generation.py", "Prompt"),
         ("translation.py", "English sentence"), ("step_by_step.py", "Text"), ("positional.py", "Sentence")]
TEXTS = ["The restaurant was busy.", "The cafe refused to serve me because it was closed.",
         "The chef cooked the soup", "the cat sat on the mat", "The waiter brought the bread.",
         "the woman ate the raccoon"]


def model_loads(server_log: Path) -> Counter:
    """(model, device) -> how many times the server loaded it, from its log."""
    return Counter(re.findall(r"\[attention-lab\] loading model (\S+) on (\S+)", Path(server_log).read_text()))


def drive_sessions(browser, url: str, n: int = 10, timeout: float = 180_000) -> dict:
    """Open n contexts, send each to a page, type its own text while the others still run, then check
    each kept its own text and raised nothing. Returns counts and the per-session problems."""
    sessions = []
    for i in range(n):
        page_file, label = BOXES[i % len(BOXES)]
        ctx = browser.new_context(viewport={"width": 1200, "height": 900})
        pg = ctx.new_page()
        errors: list[str] = []
        pg.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
        pg.on("console", lambda m, errors=errors: errors.append(m.text) if m.type == "error" else None)
        pg.goto(url)
        sessions.append(dict(ctx=ctx, pg=pg, file=page_file, label=label, text=f"{TEXTS[i % len(TEXTS)]} {i}",
                             errors=errors))
    for s in sessions:                                   # every session navigates before any finishes
        wait_for_app(s["pg"], timeout=timeout)
        title = _pages.BY_NAME[s["file"].removesuffix(".py")].title
        s["pg"].locator('[data-testid="stSidebarNav"]').get_by_role("link", name=title).click()
    for s in sessions:                                   # type while the others are still running
        box = s["pg"].get_by_role("textbox", name=s["label"], exact=True).first
        box.wait_for(timeout=timeout)
        box.fill(s["text"])
        box.press("Control+Enter" if s["label"] == "Text" else "Enter")
    problems = []
    for s in sessions:
        pg = s["pg"]
        pg.wait_for_timeout(300)
        wait_for_app(pg, timeout=timeout)
        kept = pg.get_by_role("textbox", name=s["label"], exact=True).first.input_value()
        if kept != s["text"]:
            problems.append(f"{s['file']}: text {kept!r} is not its own {s['text']!r}")
        if pg.locator('[data-testid="stException"]').count():
            problems.append(f"{s['file']}: shows an exception")
        problems += [f"{s['file']}: console: {e}" for e in s["errors"]]
    first = sessions[0]["pg"]
    for s in sessions[1:]:
        s["ctx"].close()
    return {"sessions": n, "problems": problems, "first_page": first, "first_ctx": sessions[0]["ctx"]}
