"""The class store in an embedded SQLite file (classstore/store.py's interface), for a single `streamlit run
app.py`: every session of the one process shares it. Each answer is one transaction (BEGIN IMMEDIATE: the class,
the rate, the question and its reveal are checked and the pick written with no other writer in between), committed
with synchronous=FULL in WAL mode, so an acknowledged answer is on disk. Expired classes are left out of every
read and deleted when a class is created."""
import sqlite3
import threading
from pathlib import Path

from classstore.store import ClassStore, Question, Refused, StoreDown, decode_picks, encode_picks

SCHEMA = """
CREATE TABLE IF NOT EXISTS classes (code TEXT PRIMARY KEY, host TEXT NOT NULL, expires REAL NOT NULL,
                                    asking TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS questions (code TEXT NOT NULL, qid TEXT NOT NULL, body TEXT NOT NULL,
                                      revealed INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (code, qid));
CREATE TABLE IF NOT EXISTS answers (code TEXT NOT NULL, qid TEXT NOT NULL, student TEXT NOT NULL,
                                    picks TEXT NOT NULL, PRIMARY KEY (code, qid, student));
CREATE TABLE IF NOT EXISTS hits (name TEXT PRIMARY KEY, since REAL NOT NULL, n INTEGER NOT NULL);
"""


class SQLiteStore(ClassStore):
    backend = "sqlite"

    def __init__(self, path: Path, **kw):
        super().__init__(**kw)
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=5)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)
        except (OSError, sqlite3.Error) as e:
            raise StoreDown(f"the class file {self.path} cannot be opened: {e}") from e

    def _run(self, fn, write: bool = False):
        """fn(cursor) in one transaction (BEGIN IMMEDIATE for a write), under the process's lock."""
        with self._lock:
            try:
                cur = self._db.cursor()
                cur.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                try:
                    out = fn(cur)
                except BaseException:
                    cur.execute("ROLLBACK")
                    raise
                cur.execute("COMMIT")
                return out
            except sqlite3.Error as e:
                raise StoreDown(f"the class file {self.path}: {e}") from e

    def ping(self) -> None:
        self._run(lambda c: c.execute("SELECT 1").fetchone())

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _live(self, c, code: str):
        return c.execute("SELECT host, asking FROM classes WHERE code = ? AND expires > ?",
                         (code, self.clock())).fetchone()

    def _create(self, code: str, host_hash: str, expires: float) -> bool:
        def create(c):
            now = self.clock()
            gone = [r[0] for r in c.execute("SELECT code FROM classes WHERE expires <= ?", (now,))]
            for table in ("answers", "questions", "classes"):
                c.executemany(f"DELETE FROM {table} WHERE code = ?", [(g,) for g in gone])
            c.execute("DELETE FROM hits WHERE since <= ?", (now - self.window_s,))
            if c.execute("SELECT 1 FROM classes WHERE code = ?", (code,)).fetchone():
                return False
            c.execute("INSERT INTO classes (code, host, expires) VALUES (?, ?, ?)", (code, host_hash, expires))
            return True
        return self._run(create, write=True)

    def _host_hash(self, code: str) -> str | None:
        row = self._run(lambda c: self._live(c, code))
        return row[0] if row else None

    def _ask(self, code: str, questions: list[Question]) -> None:
        def ask(c):
            c.executemany("INSERT INTO questions (code, qid, body) VALUES (?, ?, ?) "
                          "ON CONFLICT (code, qid) DO UPDATE SET body = excluded.body",
                          [(code, q.qid, q.to_json()) for q in questions])
            c.execute("UPDATE classes SET asking = ? WHERE code = ?", (" ".join(q.qid for q in questions), code))
        self._run(ask, write=True)

    def _asking(self, code: str):
        def asking(c):
            row = self._live(c, code)
            qids = row[1].split() if row else []
            out, revealed = [], set()
            for qid in qids:
                got = c.execute("SELECT body, revealed FROM questions WHERE code = ? AND qid = ?",
                                (code, qid)).fetchone()
                if got:
                    out.append(Question.from_json(got[0]))
                    if got[1]:
                        revealed.add(qid)
            return out, revealed
        return self._run(asking)

    def _question(self, code: str, qid: str):
        row = self._run(lambda c: c.execute("SELECT body, revealed FROM questions WHERE code = ? AND qid = ?",
                                            (code, qid)).fetchone())
        return (Question.from_json(row[0]), bool(row[1])) if row else (None, False)

    def _reveal(self, code: str, qids: list[str], revealed: bool) -> None:
        self._run(lambda c: c.executemany("UPDATE questions SET revealed = ? WHERE code = ? AND qid = ?",
                                          [(int(revealed), code, q) for q in qids]), write=True)

    def _forget(self, code: str, qids: list[str]) -> None:
        self._run(lambda c: c.executemany("DELETE FROM answers WHERE code = ? AND qid = ?",
                                          [(code, q) for q in qids]), write=True)

    def _hit(self, c, name: str, most: int) -> bool:
        """Count one answer against a rate; False when the window already holds `most`."""
        now = self.clock()
        row = c.execute("SELECT since, n FROM hits WHERE name = ?", (name,)).fetchone()
        if row is None or row[0] <= now - self.window_s:
            c.execute("INSERT OR REPLACE INTO hits (name, since, n) VALUES (?, ?, 1)", (name, now))
            return True
        c.execute("UPDATE hits SET n = n + 1 WHERE name = ?", (name,))
        return row[1] + 1 <= most

    def _answer(self, code: str, student: str, qid: str, picks: tuple[int, ...], client: str) -> None:
        def answer(c):
            row = self._live(c, code)
            if row is None:
                raise Refused("unknown_class", code)
            ok = self._hit(c, f"{code}:s:{student}", self.per_student)
            ok = self._hit(c, f"{code}:c:{client}", self.per_client) and ok
            if not ok:
                return "too_fast"
            if qid not in row[1].split():
                return "not_asked"
            body, revealed = c.execute("SELECT body, revealed FROM questions WHERE code = ? AND qid = ?",
                                       (code, qid)).fetchone()
            if revealed:
                return "revealed"
            Question.from_json(body).check(picks)
            c.execute("INSERT INTO answers (code, qid, student, picks) VALUES (?, ?, ?, ?) "
                      "ON CONFLICT (code, qid, student) DO UPDATE SET picks = excluded.picks",
                      (code, qid, student, encode_picks(picks)))
            return None
        refused = self._run(answer, write=True)        # the rate's count is kept even when the answer is refused
        if refused:
            raise Refused(refused, qid)

    def _picks(self, code: str, student: str, qids: list[str]):
        def picks(c):
            if self._live(c, code) is None:
                return {}
            rows = c.execute(f"SELECT qid, picks FROM answers WHERE code = ? AND student = ? AND qid IN "
                             f"({','.join('?' * len(qids))})", (code, student, *qids)).fetchall() if qids else []
            return {q: decode_picks(p) for q, p in rows}
        return self._run(picks)

    def _all_picks(self, code: str, qid: str):
        rows = self._run(lambda c: c.execute("SELECT picks FROM answers WHERE code = ? AND qid = ?",
                                             (code, qid)).fetchall())
        return [decode_picks(r[0]) for r in rows]
