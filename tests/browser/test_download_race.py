"""A download click that races a rerun, over the real websocket (app_pages/_downloads.py): the button drawn for
the previous text answers "the view changed: click it again" (before: MediaFileStorageError in the log and nothing
for the user, or the previous text's file under the same name); the button drawn now serves its file, named after
what it shows and a hash of its text."""
import hashlib
import urllib.request

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from tests.browser.wire import elements, session, widget_id

QUERY = "explorer_tab=Downloads"
BEFORE, AFTER = "The restaurant was full.", "The restaurant was quiet."


def grid_button(msgs):
    return next(b for b in elements(msgs, "download_button") if b.label == "Grid (PNG)")


def ask_file(s, session_id: str, file_id: str) -> ForwardMsg:
    """What a click on a deferred download button sends, and the server's answer."""
    msg = BackMsg()
    msg.backend_operation_request.request_id = f"click-{file_id[:8]}"
    msg.backend_operation_request.session_id = session_id
    msg.backend_operation_request.deferred_file.file_id = file_id
    s.send(msg)
    return next(m for m in s.read(until=lambda m: m.WhichOneof("type") == "backend_operation_response")
                if m.WhichOneof("type") == "backend_operation_response").backend_operation_response


def test_a_click_that_races_a_rerun_says_the_view_changed_and_the_new_button_serves_its_named_file(server_url):
    with session(server_url) as s:
        old = s.run("explorer", f"{QUERY}&explorer_text={BEFORE.replace(' ', '+')}")
        session_id = next(m.new_session.initialize.session_id for m in old if m.WhichOneof("type") == "new_session")
        text_box, old_id = widget_id(old, "explorer_text"), grid_button(old).deferred_file_id
        new = s.run("explorer", QUERY, [(text_box, "string_value", AFTER)])      # the rerun the click races
        new_id = grid_button(new).deferred_file_id
        assert new_id and new_id != old_id
        late = ask_file(s, session_id, old_id)
        assert late.error_msg == "The view changed since this button was drawn: click it again."
        answer = ask_file(s, session_id, new_id)
        assert not answer.error_msg
    with urllib.request.urlopen(server_url + answer.deferred_file.url, timeout=30) as r:
        disposition, data = r.headers["Content-Disposition"], r.read()
    tag = hashlib.blake2b(AFTER.encode(), digest_size=8).hexdigest()[:6]
    assert f'filename="coref_encoder_all_heads_{tag}.png"' in disposition, disposition
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
