"""A download click that races a rerun, in a real browser (runtime/downloads.py): the person types a new text and,
before the page has redrawn, clicks a download button drawn for the previous text. The server's answers to the
rerun are held back (Playwright's websocket route), so the click reaches the server with the old button's id,
as it does on a slow connection. The button says "the view changed: click it again" (before: MediaFileStorageError
in the server log and nothing for the person); once the page has redrawn, the click downloads the file, named after
what it shows and a short hash of the new text."""
import hashlib

from playwright.sync_api import expect
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from tests.browser.conftest import open_app_page, wait_for_app

AFTER = "The cafe was closed because it was late."


class SlowLink:
    """Passes the server's messages to the page, or, while `holding`, keeps all but the answers to download clicks
    (and notes when the held rerun finished)."""

    def __init__(self):
        self.holding, self.held, self.finished = False, [], False

    def __call__(self, ws):
        server = ws.connect_to_server()

        def from_server(message):
            if self.holding and isinstance(message, (bytes, bytearray)):
                msg = ForwardMsg()
                msg.ParseFromString(bytes(message))
                if msg.WhichOneof("type") != "backend_operation_response":
                    self.held.append(message)
                    self.finished |= msg.WhichOneof("type") == "script_finished"
                    return
            ws.send(message)

        server.on_message(from_server)
        self.ws = ws

    def release(self):
        self.holding = False
        for message in self.held:
            self.ws.send(message)
        self.held = []


def test_a_click_that_races_a_rerun_says_the_view_changed_then_downloads_the_new_view(page, server_url):
    link = SlowLink()
    page.route_web_socket("**/_stcore/stream", link)
    open_app_page(page, server_url, "explorer.py")
    page.get_by_role("tab", name="Downloads").click()
    grid = page.get_by_role("button", name="Grid (PNG)")
    grid.wait_for(timeout=120_000)
    link.holding = True
    box = page.get_by_role("textbox", name="Text", exact=True)
    box.fill(AFTER)
    box.press("Control+Enter")
    deadline = 120
    while not link.finished and deadline > 0:                 # the server reran: the old button's file is gone
        page.wait_for_timeout(250)
        deadline -= 0.25
    assert link.finished
    page.wait_for_timeout(300)             # Streamlit drops the old run's files just after it says it finished
    grid.click()
    expect(page.get_by_test_id("stDownloadButtonError")).to_have_text(
        "The view changed since this button was drawn: click it again.", timeout=30_000)
    link.release()
    wait_for_app(page, timeout=120_000)
    with page.expect_download(timeout=60_000) as info:
        grid.click()
    tag = hashlib.blake2b(AFTER.encode(), digest_size=8).hexdigest()[:6]
    assert info.value.suggested_filename == f"coref_encoder_all_heads_{tag}.png"
