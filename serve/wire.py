"""A Streamlit client on the wire: the websocket and protobuf messages a browser sends (BackMsg) and receives
(ForwardMsg), without a browser. Tests use it to send what no page offers (as a hostile client can); the class
load test (serve/load.py) uses it to be many students at once through the balancer, each as a browser tab is:
an HTTP GET of the page first (the balancer's affinity cookie comes back), then the websocket with that cookie,
then reruns carrying widget states, as the page's widgets send them."""
import contextlib
import http.client
import socket
import urllib.parse
import uuid

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.sync.client import connect


@contextlib.contextmanager
def session(url: str, timeout: float = 180, cookie: str | None = None, headers: dict | None = None):
    """A Session of the app at `url` (http://host:port) for the duration of a `with` block; `cookie` (a Cookie
    header's value) and `headers` travel with the websocket handshake, as a browser's cookies and a proxy's
    X-Forwarded-For do."""
    ws = open_socket(url, timeout, cookie, headers)
    try:
        yield Session(ws, timeout)
    finally:
        ws.close()


def open_socket(url: str, timeout: float = 180, cookie: str | None = None, headers: dict | None = None):
    """The websocket a browser tab opens to /_stcore/stream (the caller closes it)."""
    ws_url = url.replace("http://", "ws://", 1) + "/_stcore/stream"
    headers = {**(headers or {}), **({"Cookie": cookie} if cookie else {})} or None
    return connect(ws_url, subprotocols=["streamlit"], max_size=None, open_timeout=timeout,
                   additional_headers=headers, legacy=True)       # legacy: held open past this call


def get(url: str, path: str = "/", cookie: str | None = None, timeout: float = 30,
        method: str = "GET", body: bytes | None = None, headers: dict | None = None):
    """One HTTP request on loopback: (status, headers as a list of pairs, body). No redirects, no cookie jar."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        sent = dict(headers or {})
        if cookie:
            sent["Cookie"] = cookie
        conn.request(method, path, body=body, headers=sent)
        resp = conn.getresponse()
        return resp.status, resp.getheaders(), resp.read()
    finally:
        conn.close()


def upload(url: str, path: str, data: bytes, cookie: str, timeout: float = 60,
           name: str = "upload.png") -> tuple[int, bytes]:
    """PUT one file to an upload address as the browser's uploader does (multipart form data, with the XSRF token
    of `cookie`, the Cookie header after GET /_stcore/health, in X-Xsrftoken), asking `Expect: 100-continue`: the
    body is sent only once the server says it will read it, so a refusal comes back without it. (status, body)."""
    xsrf = next((v for k, v in (p.split("=", 1) for p in cookie.split("; ") if "=" in p) if k == "_streamlit_xsrf"),
                "")
    body = (f"--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n".encode()
            + b"Content-Type: application/octet-stream\r\n\r\n" + data + b"\r\n--x--\r\n")
    parts = urllib.parse.urlsplit(url)
    head = (f"PUT {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nCookie: {cookie}\r\nX-Xsrftoken: {xsrf}\r\n"
            f"Content-Type: multipart/form-data; boundary=x\r\nContent-Length: {len(body)}\r\n"
            f"Expect: 100-continue\r\nConnection: close\r\n\r\n")
    with socket.create_connection((parts.hostname, parts.port), timeout=timeout) as sock, sock.makefile("rb") as f:
        sock.sendall(head.encode())
        status, headers = _response_head(f)
        if status == 100:
            sock.sendall(body)
            status, headers = _response_head(f)
        return status, f.read(int(headers.get("content-length", 0)))


def _response_head(f) -> tuple[int, dict[str, str]]:
    """The status and headers (lower-case names) of the next response on a socket's file."""
    status = int(f.readline().split()[1])
    headers = {}
    while (line := f.readline().strip()):
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers


def header(headers, name: str) -> str | None:
    """A response header's value (the last one of that name, any case), from (name, value) pairs."""
    return next((v for k, v in reversed(list(headers)) if k.lower() == name.lower()), None)


def set_cookies(headers) -> str:
    """The name=value pairs of a response's Set-Cookie headers, as the next request's Cookie header."""
    return "; ".join(v.split(";", 1)[0].strip() for k, v in headers if k.lower() == "set-cookie")


class Session:
    """One websocket session: what a browser tab holds. Remembers the page that ran (its script hash) and the
    widget states it has sent, as the browser's widget manager does, so each rerun carries all of them."""

    def __init__(self, ws, timeout: float):
        self.ws, self.timeout = ws, timeout
        self.page_hash = ""
        self.session_id = ""                       # the server's id of this session (its new_session message)
        self.widgets: dict[str, WidgetState] = {}
        self.ids: dict[str, str] = {}              # user key -> widget id, of the widgets drawn so far

    def send(self, msg: BackMsg):
        self.ws.send(msg.SerializeToString())

    def receive(self, timeout: float | None = None) -> ForwardMsg:
        """The next message (TimeoutError after `timeout`, or the session's timeout)."""
        fwd = ForwardMsg()
        fwd.ParseFromString(self.ws.recv(timeout=self.timeout if timeout is None else timeout))
        kind = fwd.WhichOneof("type")
        if kind == "navigation":                   # the page that ran (st.navigation): the next rerun's page
            self.page_hash = fwd.navigation.page_script_hash
        elif kind == "new_session" and fwd.new_session.initialize.session_id:
            self.session_id = fwd.new_session.initialize.session_id
        elif kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
            element = fwd.delta.new_element
            wid = getattr(getattr(element, element.WhichOneof("type") or "", None), "id", None)
            if isinstance(wid, str) and wid.startswith("$$ID-"):     # "$$ID-<hash>-<key>"
                self.ids[wid.split("-", 2)[2]] = wid
        return fwd

    def run(self, page: str = "", query: str = "", widgets=()) -> list[ForwardMsg]:
        """Open `page` (its URL path; "" = home) with the link's `query`, as a navigation does (with these widget
        values, see `start`), and return every message until the script finished."""
        self.start(page, query, widgets)
        return self.read()

    def start(self, page: str = "", query: str = "", widgets=()):
        """Ask for a run of `page` with these widget values: WidgetState protos, or (id, field, value) triples such
        as ("…-masks_n", "double_value", nan), which a hostile client may send whatever the page offers."""
        msg = BackMsg()
        msg.rerun_script.page_name = page
        msg.rerun_script.query_string = query
        self.widgets = {}                          # a new page: the browser forgets the last page's widgets
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

    def change(self, states: list[WidgetState], query: str = "") -> list[ForwardMsg]:
        """What a widget's change sends: a rerun of the current page carrying every widget state set so far (these
        `states` replacing theirs), and the address bar's `query`; returns the messages until the script finished."""
        for s in states:
            self.widgets[s.id] = s
        msg = BackMsg()
        msg.rerun_script.page_script_hash = self.page_hash
        msg.rerun_script.query_string = query
        msg.rerun_script.widget_states.widgets.extend(self.widgets.values())
        self.send(msg)
        return self.read()

    def fragment(self, fragment_id: str, states: list[WidgetState] = (), query: str = "",
                 auto: bool = False) -> list[ForwardMsg]:
        """What a fragment sends: its timer (auto=True, st.fragment(run_every=...)) or a widget inside it (these
        `states` replacing theirs): a rerun of that fragment only, carrying every widget state set so far; returns
        the messages until the fragment's run finished."""
        for s in states:
            self.widgets[s.id] = s
        msg = BackMsg()
        msg.rerun_script.page_script_hash = self.page_hash
        msg.rerun_script.query_string = query
        msg.rerun_script.fragment_id = fragment_id
        msg.rerun_script.is_auto_rerun = auto
        msg.rerun_script.widget_states.widgets.extend(self.widgets.values())
        self.send(msg)
        return self.read()

    def read(self, until=None) -> list[ForwardMsg]:
        """The messages until the script finished, or until `until(message)` is true for one of them."""
        out = []
        while True:
            fwd = self.receive()
            out.append(fwd)
            if fwd.WhichOneof("type") == "script_finished" or (until is not None and until(fwd)):
                return out

    def download(self, file_id: str) -> tuple[str, str]:
        """What a click on a download button made on click sends (its deferred_file_id); (the file's address, the
        error message) of the server's answer, one of them empty."""
        msg = BackMsg()
        msg.backend_operation_request.request_id = uuid.uuid4().hex
        msg.backend_operation_request.session_id = self.session_id
        msg.backend_operation_request.deferred_file.file_id = file_id
        self.send(msg)
        answer = self.read(until=lambda m: m.WhichOneof("type") == "backend_operation_response")[-1]
        response = answer.backend_operation_response
        return response.deferred_file.url, response.error_msg

    def upload_urls(self, n: int = 1) -> list[str]:
        """What a file uploader asks before it uploads n files: the addresses the server issues (one a file)."""
        msg = BackMsg()
        msg.file_urls_request.request_id = uuid.uuid4().hex
        msg.file_urls_request.session_id = self.session_id
        msg.file_urls_request.file_names.extend(f"file{i}.png" for i in range(n))
        self.send(msg)
        answer = self.read(until=lambda m: m.WhichOneof("type") == "file_urls_response")[-1]
        return [f.upload_url for f in answer.file_urls_response.file_urls]

    def clear_cache(self):
        """What the menu's "Clear cache" sends."""
        msg = BackMsg()
        msg.clear_cache = True
        self.send(msg)


def elements(msgs: list[ForwardMsg], kind: str) -> list:
    """The new elements of one kind ("exception", "alert", "markdown", ...) among the messages."""
    return [getattr(m.delta.new_element, kind) for m in msgs
            if m.WhichOneof("type") == "delta" and m.delta.new_element.WhichOneof("type") == kind]


def auto_rerun_s(msgs: list[ForwardMsg]) -> float | None:
    """The interval of a timed rerun the run asked the browser for (a fragment's run_every), or None."""
    return next((m.auto_rerun.interval for m in msgs if m.WhichOneof("type") == "auto_rerun"), None)


def timed_fragment(msgs: list[ForwardMsg]) -> str | None:
    """The id of the fragment whose timer the run asked the browser for (st.fragment(run_every=...)), or None."""
    return next((m.auto_rerun.fragment_id for m in msgs if m.WhichOneof("type") == "auto_rerun"), None)


def pills_state(widget_id: str, labels: list[str]) -> WidgetState:
    """Pills' (or a segmented control's) picks, sent as the options' shown labels (what Streamlit 1.67 reads)."""
    state = WidgetState(id=widget_id)
    state.string_array_value.data.extend(labels)
    return state


def texts(msgs: list[ForwardMsg], kind: str = "alert") -> list[str]:
    """The bodies of the elements of one kind ("alert": st.info/warning/error; "markdown")."""
    return [e.body for e in elements(msgs, kind)]


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


def widget(msgs: list[ForwardMsg], kind: str, key: str):
    """The widget element of one kind ("text_area", "selectbox", ...) whose user key is `key`, or None. Streamlit
    ends a keyed widget's id with its key."""
    return next((w for w in elements(msgs, kind) if w.id.endswith(f"-{key}")), None)


def text_state(widget_id: str, value: str) -> WidgetState:
    """A text box's new value, as the browser sends it on Ctrl+Enter or leaving the box."""
    return WidgetState(id=widget_id, string_value=value)


def option_state(widget_id: str, shown: str) -> WidgetState:
    """A selectbox's pick, sent as the option's shown label (what Streamlit 1.67's selectbox reads)."""
    return WidgetState(id=widget_id, string_value=shown)
