from tests.browser.test_positional import open_page, open_tab, HEATMAP
from tests.browser.conftest import shot
import time
def test_dbg(page, server_url):
    page.set_viewport_size({"width": 1400, "height": 3200})
    open_page(page, server_url)
    for name in ["Waves", "Similarity"]:
        panel = open_tab(page, name)
        t = time.time()
        for _ in range(30):
            n = panel.locator(HEATMAP).count()
            v = panel.locator(HEATMAP).first.is_visible() if n else None
            print(name, round(time.time()-t,1), n, v, panel.locator('[data-testid="stPlotlyChart"]').count())
            if v: break
            page.wait_for_timeout(1000)
        shot(page, "dbg_"+name)
    page.problems.clear()
