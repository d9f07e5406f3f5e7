"""Values of a kind a widget never sends, on the real server over the websocket (runtime/input_checks.py): a toggle
given text or a list, a button given text, a text box given a number (before, the page then failed on every later
run: the value is kept across pages), a chart selection that is not JSON or is nested thousands deep
(RecursionError), a file uploader given text. Each is ignored with a notice, the widget keeps its value, the page
runs; and a playlist file of nested brackets imported on the lecture page gets a message, not RecursionError."""
import pytest
from streamlit.proto.Common_pb2 import FileUploaderState, FileURLs, UploadedFileInfo
from streamlit.proto.WidgetStates_pb2 import WidgetState

from serve import wire

IGNORED = "Ignored a value this page does not offer"
DEEP = "[" * 5000 + "]" * 5000


def hostile(ident: str, field: str, value) -> WidgetState:
    state = WidgetState(id=ident)
    if field == "string_array_value":
        state.string_array_value.data.extend(value)
    else:
        setattr(state, field, value)
    return state


@pytest.mark.parametrize("page, query, key, field, value", [
    ("explorer", "", "explorer_log", "string_value", "yes"),
    ("explorer", "", "explorer_log", "int_value", 3),
    ("explorer", "", "explorer_log", "string_array_value", ["on"]),
    ("explorer", "", "explorer_text", "int_value", 5),
    ("explorer", "", "explorer_text", "bool_value", True),
    ("explorer", "", "explorer_grid", "string_value", "not json"),
    ("explorer", "", "explorer_grid", "string_value", DEEP),
    ("lecture", "", "lecture_remove", "string_value", "x"),
    ("lecture", "", "lecture_remove", "int_value", 1),
    ("images", "img_source=Upload", "img_upload", "string_value", "x"),
    ("images", "img_source=Upload", "img_upload", "int_value", 7),
    ("lecture", "", "lecture_import", "string_value", "x"),
], ids=lambda v: str(v)[:20])
def test_a_value_of_the_wrong_kind_is_ignored_with_a_notice_and_the_page_runs(server_url, page, query, key, field,
                                                                            value):
    with wire.session(server_url, timeout=180) as s:
        ident = wire.widget_id(s.run(page, query), key)
        msgs = s.change([hostile(ident, field, value)], query)
        assert not wire.elements(msgs, "exception"), (key, field, [e.message for e in wire.elements(msgs, "exception")])
        assert any(t.startswith(IGNORED) for t in wire.texts(msgs)), wire.texts(msgs)
        again = s.run(page, query)                                   # a later run of the page: nothing kept
        assert not wire.elements(again, "exception"), key


@pytest.mark.parametrize("name, data, says", [
    ("nested.json", b"[" * 20_000 + b"]" * 20_000, "The file nests brackets too deeply to be a playlist"),   # 40 KB
    ("picture.png", b"\x89PNG picture", IGNORED),                   # a type the import does not take
], ids=["nested_brackets", "wrong_type"])
def test_a_playlist_import_of_nested_brackets_or_of_another_type_gets_a_message(server_url, name, data, says):
    _, headers, _ = wire.get(server_url, "/_stcore/health")
    cookie = wire.set_cookies(headers)
    with wire.session(server_url, timeout=180, cookie=cookie) as s:
        ident = wire.widget_id(s.run("lecture"), "lecture_import")
        url = s.upload_urls(1)[0]
        assert wire.upload(server_url, url, data, cookie, name=name)[0] == 204
        file_id = url.rsplit("/", 1)[1]
        state = WidgetState(id=ident, file_uploader_state_value=FileUploaderState(uploaded_file_info=[
            UploadedFileInfo(name=name, size=len(data), file_id=file_id,
                             file_urls=FileURLs(file_id=file_id, upload_url=url, delete_url=url))]))
        msgs = s.change([state])
    assert not wire.elements(msgs, "exception"), [e.message for e in wire.elements(msgs, "exception")]
    assert any(says in t for t in wire.texts(msgs)), wire.texts(msgs)
