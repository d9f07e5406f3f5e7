"""Ten sessions at once against one server, each on its own page with its own text: no exceptions,
no console errors, no state leaking between sessions, and every model loaded once."""
import re
from collections import Counter

from app_pages import _pages
from tests.browser.conftest import shot, wait_for_app

# (page url path, accessible name of its text box)
SESSIONS = [("explorer", "Text"), ("coreference", "Text"), ("generation", "Prompt"),
            ("translation", "English sentence"), ("step_by_step", "Text"), ("positional", "Sentence")]
TEXTS = ["The restaurant was busy.", "The cafe refused to serve me because it was closed.",
         "The chef cooked the soup", "the cat sat on the mat", "The waiter brought the bread.",
         "the woman ate the raccoon"]


def test_ten_sessions_at_once(browser, server_url, server_log):
    sessions = []
    for i in range(10):                               # ten contexts = ten independent Streamlit sessions
        path, label = SESSIONS[i % len(SESSIONS)]
        ctx = browser.new_context(viewport={"width": 1200, "height": 900})
        pg = ctx.new_page()
        errors = []
        pg.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
        pg.on("console", lambda m, errors=errors: errors.append(m.text) if m.type == "error" else None)
        pg.goto(server_url)
        sessions.append((ctx, pg, path, label, f"{TEXTS[i % len(TEXTS)]} {i}", errors))
    for _, pg, path, *_ in sessions:                  # every session navigates before any finishes
        wait_for_app(pg, timeout=180_000)
        title = next(t for f, t, _, _ in _pages.PAGES if f == f"{path}.py")
        pg.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=title).click()
    for _, pg, _, label, text, _ in sessions:         # type while the others are still running
        pg.wait_for_timeout(200)
        box = pg.get_by_role("textbox", name=label, exact=True).first
        box.wait_for(timeout=180_000)
        box.fill(text)
        box.press("Control+Enter" if label == "Text" else "Enter")
    for ctx, pg, path, label, text, errors in sessions:
        pg.wait_for_timeout(300)
        wait_for_app(pg, timeout=180_000)
        assert pg.get_by_role("textbox", name=label, exact=True).first.input_value() == text, path
        assert pg.locator('[data-testid="stException"]').count() == 0, path
        assert not errors, (path, errors)
    shot(sessions[0][1], "concurrency_session0")
    for ctx, *_ in sessions:
        ctx.close()
    loads = Counter(re.findall(r"\[attention-lab\] loading model (\S+) on (\S+)", server_log.read_text()))
    assert loads and max(loads.values()) == 1, loads
