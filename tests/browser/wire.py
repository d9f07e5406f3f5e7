"""A Streamlit client on the wire: the websocket and protobuf messages a browser sends (BackMsg) and receives
(ForwardMsg), without a browser, so a test can send what no page offers (as a hostile client can)."""
import contextlib

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.sync.client import connect


@contextlib.contextmanager
def session(url: str, timeout: float = 180):
    """A Session of the app at `url` (http://host:port) for the duration of a `with` block."""
    ws_url = url.replace("http://", "ws://", 1) + "/_stcore/stream"
    with connect(ws_url, subprotocols=["streamlit"], max_size=None, open_timeout=timeout) as ws:
        yield Session(ws, timeout)


class Session:
    """One websocket session: what a browser tab holds."""

    def __init__(self, ws, timeout: float):
        self.ws, self.timeout = ws, timeout

    def send(self, msg: BackMsg):
        self.ws.send(msg.SerializeToString())

    def run(self, page: str = "", query: str = "", widgets=()) -> list[ForwardMsg]:
        """Rerun the script on `page` (its URL path; "" = home) with these widget values (see `start`), and return
        every message until it finished."""
        self.start(page, query, widgets)
        return self.read()

    def start(self, page: str = "", query: str = "", widgets=()):
        """Ask for a rerun of `page` with these widget values: WidgetState protos, or (id, field, value) triples
        such as ("…-masks_n", "double_value", nan)."""
        msg = BackMsg()
        msg.rerun_script.page_name = page
        msg.rerun_script.query_string = query
        for w in widgets:
            state = msg.rerun_script.widget_states.widgets.add()
            if isinstance(w, tuple):
                ident, field, value = w
                state.id = ident
                if field == "string_array_value":
                    state.string_array_value.data.extend(value)
                else:
                    setattr(state, field, value)
            else:
                state.CopyFrom(w)
        self.send(msg)

    def read(self, until=None) -> list[ForwardMsg]:
        """The messages until the script finished, or until `until(message)` is true for one of them."""
        out = []
        while True:
            fwd = ForwardMsg()
            fwd.ParseFromString(self.ws.recv(timeout=self.timeout))
            out.append(fwd)
            if fwd.WhichOneof("type") == "script_finished" or (until is not None and until(fwd)):
                return out

    def clear_cache(self):
        """What the menu's "Clear cache" sends."""
        msg = BackMsg()
        msg.clear_cache = True
        self.send(msg)


def widget_id(msgs: list[ForwardMsg], key: str) -> str:
    """The id of the widget whose user key is `key` among the elements the messages drew."""
    for m in msgs:
        if m.WhichOneof("type") == "delta" and m.delta.WhichOneof("type") == "new_element":
            el = m.delta.new_element
            kind = el.WhichOneof("type")
            ident = getattr(getattr(el, kind), "id", "") if kind else ""
            if isinstance(ident, str) and ident.endswith(f"-{key}"):
                return ident
    raise AssertionError(f"no widget with key {key!r} was drawn")


def texts(msgs: list[ForwardMsg], kind: str = "alert") -> list[str]:
    """The bodies of the elements of one kind ("alert": st.info/warning/error; "markdown")."""
    return [e.body for e in elements(msgs, kind)]


def elements(msgs: list[ForwardMsg], kind: str) -> list:
    """The new elements of one kind ("exception", "alert", "markdown", ...) among the messages."""
    return [getattr(m.delta.new_element, kind) for m in msgs
            if m.WhichOneof("type") == "delta" and m.delta.new_element.WhichOneof("type") == kind]
