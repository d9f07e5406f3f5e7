"""Students who download while the class reruns: each is one thread holding one websocket through the balancer
(serve/wire.py), on the explorer's Downloads tab, clicking its buttons one after another (a file made on click,
runtime/downloads.py) and fetching each file from the address the server answered, with its affinity cookie, at
once, as a browser does. A click whose file could not be fetched (an error answered, or anything but 200 with a
body) is a download lost: in a busy class Streamlit's sweep after other sessions' runs deleted such files.

    crowd = Downloaders(url, n=4, every_s=(2, 4))
    crowd.start(); ...; crowd.stop()
    crowd.figures()      # {"clicks": …, "fetched": …, "lost": …, "examples": [...]}"""
import random
import threading

from serve import wire
from serve.balancer import COOKIE

BUTTONS = ("explorer_file_csv", "explorer_file_json", "explorer_file_grid", "explorer_file_zoom_png")
QUERY = "explorer_tab=Downloads"


class Downloaders:
    """n downloading students, each clicking every `every_s` seconds (uniform, seeded) until stop()."""

    def __init__(self, url: str, n: int = 4, every_s=(2.0, 4.0), seed: int = 0, timeout: float = 120):
        self.url, self.every_s, self.timeout = url, every_s, timeout
        self.halt = threading.Event()
        self.lock = threading.Lock()
        self.clicks = self.fetched = self.lost = 0
        self.examples: list[str] = []
        self.threads = [threading.Thread(target=self._live, args=(i, random.Random(seed * 1_009 + i)),
                                         name=f"downloader-{i}", daemon=True) for i in range(n)]

    def start(self) -> "Downloaders":
        for t in self.threads:
            t.start()
        return self

    def stop(self) -> None:
        """Stop clicking (a click under way is finished and counted)."""
        self.halt.set()
        for t in self.threads:
            t.join(timeout=self.timeout)

    def figures(self) -> dict:
        with self.lock:
            return {"clicks": self.clicks, "fetched": self.fetched, "lost": self.lost, "examples": self.examples[:5]}

    def _count(self, ok: bool, why: str = "") -> None:
        with self.lock:
            self.clicks += 1
            self.fetched += ok
            self.lost += not ok
            if why:
                self.examples.append(why)

    def _open(self) -> tuple[wire.Session, str, dict]:
        """The explorer's Downloads tab through the balancer: (session, cookie, button -> file id). On a class's
        server the first run is the light first view: the buttons come with the rerun it asks for."""
        status, headers, _ = wire.get(self.url, "/explorer?" + QUERY, timeout=self.timeout)
        cookie = wire.set_cookies(headers)
        if status != 200 or not cookie.startswith(COOKIE + "="):
            raise ConnectionError(f"GET /explorer answered {status} without the balancer's cookie")
        session = wire.Session(wire.open_socket(self.url, self.timeout, cookie), self.timeout)
        for _ in range(2):
            msgs = session.run("explorer", QUERY)
            buttons = {key: w.deferred_file_id for key in BUTTONS if (w := wire.widget(msgs, "download_button", key))}
            if len(buttons) == len(BUTTONS):
                return session, cookie, buttons
        session.ws.close()
        raise ConnectionError("the explorer's Downloads tab drew no download buttons")

    def _live(self, idx: int, rng: random.Random) -> None:
        try:
            session, cookie, buttons = self._open()
        except Exception as e:      # noqa: BLE001 - a student who never got the tab clicked nothing: reported
            with self.lock:
                self.examples.append(f"downloader {idx}: {type(e).__name__}: {e}")
            return
        try:
            k = 0
            while not self.halt.wait(rng.uniform(*self.every_s)):
                key = BUTTONS[k % len(BUTTONS)]
                k += 1
                url, error = session.download(buttons[key])
                if error:
                    self._count(False, f"{key}: {error}")
                    continue
                status, _, body = wire.get(self.url, url, cookie=cookie, timeout=self.timeout)
                self._count(status == 200 and bool(body), "" if status == 200 and body else f"{key}: {status}")
        except Exception as e:      # noqa: BLE001 - a lost socket ends this student's clicks: reported
            with self.lock:
                self.examples.append(f"downloader {idx}: {type(e).__name__}: {e}")
        finally:
            session.ws.close()
