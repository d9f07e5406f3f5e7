from tests.browser.conftest import shot, wait_for_app
from tests.browser.test_step_by_step import open_tab, settle

def test_tmp(page, server_url):
    page.set_viewport_size({"width": 1400, "height": 2600})
    page.goto(server_url); wait_for_app(page)
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name="Step by step").click()
    page.wait_for_url("**/step_by_step", timeout=30_000); wait_for_app(page, timeout=120_000); settle(page)
    page.locator('[data-testid="stPlotlyChart"]').last.scroll_into_view_if_needed()
    settle(page)
    shot(page, "tmp_onehead_bottom")
    for tab in ("The lecture's example", "Multi-head", "The layer", "Causal mask"):
        open_tab(page, tab); page.wait_for_timeout(1500); shot(page, "tmp_" + tab.split()[-1])
