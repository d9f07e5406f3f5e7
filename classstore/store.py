"""The class's answers in one shared store: a class (a short code and the lecturer's host key), the
questions the lecturer is asking, each student's pick per question, the reveal and the reset. One interface,
two backends chosen by ATTENTION_LAB_CLASS_STORE (`open_store`):

- Redis (`redis://host:port/0` or `unix:///path/redis.sock`): what `python -m serve up` starts beside the
  replicas (append-only, `appendfsync always`: an acknowledged answer is on disk) and every replica reaches;
  deploy/k8s/redis.yaml in a cluster (classstore/redis_backend.py);
- SQLite (`sqlite:///path`; the default when nothing is set): an embedded file for a single `streamlit run
  app.py` (classstore/sqlite_backend.py).

The rules are the store's, whatever a client sends: a code that does not exist (or expired) is refused; an
answer goes only to a question the lecturer is asking, before its reveal, with the question's own options; one
answer per student and question (a new pick replaces it until the reveal); a rate per student and per client
address; only the host key asks, reveals, resets, or reads the counts before the reveal; a class and all that is
in it expire TTL_S after it started. Kept: a random id per browser and its picks, nothing else (no name, no
address: the address's rate counter is a hash that lives WINDOW_S seconds).

Plain Python (no Streamlit): the pages (app_pages/_class.py), the load test (serve/class_load.py) and the tests
use it alike."""
import hashlib
import hmac
import json
import re
import secrets
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

ENV = "ATTENTION_LAB_CLASS_STORE"          # where the store is: redis://, unix:// or sqlite:///path
PUBLIC_URL_ENV = "ATTENTION_LAB_PUBLIC_URL"   # the address students' phones reach (python -m serve up --public-url)
DEFAULT_SQLITE = Path(__file__).resolve().parents[1] / "runs" / "class" / "classes.sqlite3"
TTL_S = 24 * 3600                         # a class, its questions and answers expire a day after it started
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"    # no I, O, 0, 1: read off a projector without doubt
CODE_LEN = 6
WINDOW_S = 10                             # the rate window
PER_STUDENT = 20                          # answers one student id may send per window
PER_CLIENT = 1_000                        # per client address: a lecture hall behind one NAT address still answers
OPTIONS_MAX = 16
ASKED_MAX = 20                            # questions asked at once (a quiz phase)
TEXT_MAX = 4_000                          # characters of a question, an option or an explanation
CODE = re.compile(rf"[{CODE_ALPHABET}]{{{CODE_LEN}}}")
STUDENT = re.compile(r"[0-9a-f]{16,32}")   # a browser's random id (hex)
QID = re.compile(r"[A-Za-z0-9_.-]{1,64}")

REASONS = ("unknown_class", "not_host", "not_asked", "revealed", "bad_pick", "too_fast", "bad_student",
           "not_revealed", "bad_question")


class StoreDown(RuntimeError):
    """The store cannot be reached (Redis stopped, its socket gone, the file unwritable): the message says which."""


class Refused(ValueError):
    """What the store refuses, with one of REASONS as `reason` (the pages word it for people)."""

    def __init__(self, reason: str, detail: str = ""):
        assert reason in REASONS, reason
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


@dataclass
class Question:
    """One question as asked: its text, option names and explanation per language (the lecturer's language for a
    page's prediction, both for the quiz), the right options (indices; several or none with multi)."""
    qid: str
    text: dict[str, str]
    options: dict[str, list[str]]
    answer: list[int]
    multi: bool = False
    explain: dict[str, str] = field(default_factory=dict)
    group: str = ""                       # "quiz-pre", "quiz-post" or "" (a page's prediction)

    def __post_init__(self):
        if not QID.fullmatch(self.qid) or not self.text or not self.options:
            raise Refused("bad_question", self.qid)
        counts = {len(o) for o in self.options.values()}
        n = counts.pop() if len(counts) == 1 else 0
        if not 2 <= n <= OPTIONS_MAX or any(not 0 <= i < n for i in self.answer) or \
                (not self.multi and len(self.answer) != 1):
            raise Refused("bad_question", f"{self.qid}: {n} options, answer {self.answer}")
        texts = [*self.text.values(), *self.explain.values(), *(o for opts in self.options.values() for o in opts)]
        if any(not isinstance(t, str) or len(t) > TEXT_MAX for t in texts):
            raise Refused("bad_question", f"{self.qid}: a text longer than {TEXT_MAX}")

    @property
    def n(self) -> int:
        return len(next(iter(self.options.values())))

    def shown(self, lang: str) -> tuple[str, list[str], str]:
        """(text, options, explanation) in `lang`, else in the language it was asked in."""
        pick = lang if lang in self.text else next(iter(self.text))
        return (self.text[pick], self.options.get(pick) or next(iter(self.options.values())),
                self.explain.get(pick) or next(iter(self.explain.values()), ""))

    def hidden(self) -> "Question":
        """What a student sees before the reveal: no answer, no explanation."""
        out = Question.__new__(Question)
        out.__dict__.update(asdict(self), answer=[], explain={})
        return out

    def check(self, picks) -> tuple[int, ...]:
        """The picks as sorted option indices; Refused("bad_pick") for another option or count."""
        try:
            got = tuple(sorted({int(p) for p in picks}))
        except (TypeError, ValueError):
            raise Refused("bad_pick", repr(picks)) from None
        if any(not 0 <= p < self.n for p in got) or (not self.multi and len(got) != 1):
            raise Refused("bad_pick", f"{got} for {self.qid}")
        return got

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> "Question":
        return cls(**json.loads(text))


@dataclass(frozen=True)
class Tally:
    """A question's answers counted: per option (a multi-select answer counts each option it picked), how many
    students answered, how many were right (picked exactly the right options)."""
    qid: str
    counts: tuple[int, ...]
    answered: int
    correct: int
    revealed: bool

    @property
    def correct_share(self) -> float | None:
        return self.correct / self.answered if self.answered else None


@dataclass(frozen=True)
class Asking:
    """What the class is asked now: the questions (hidden until revealed) and which are revealed."""
    questions: tuple[Question, ...]
    revealed: frozenset[str]


def count(question: Question, picks: Iterable[Sequence[int]], revealed: bool) -> Tally:
    counts, answered, correct = [0] * question.n, 0, 0
    right = set(question.answer)
    for p in picks:
        answered += 1
        for i in p:
            if 0 <= i < question.n:
                counts[i] += 1
        correct += set(p) == right
    return Tally(question.qid, tuple(counts), answered, correct, revealed)


def encode_picks(picks: Sequence[int]) -> str:
    return ",".join(map(str, picks))


def decode_picks(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(",") if p)


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def client_hash(code: str, client: str) -> str:
    """A client address as the rate counter names it: not the address (nothing personal is kept)."""
    return hashlib.blake2b(f"{code}|{client}".encode(), digest_size=8).hexdigest()


class ClassStore(ABC):
    """The interface both backends keep; the checks common to both live here, the storage in the subclasses."""
    backend = ""

    def __init__(self, ttl_s: float = TTL_S, clock=time.time, window_s: int = WINDOW_S,
                 per_student: int = PER_STUDENT, per_client: int = PER_CLIENT):
        self.ttl_s, self.clock, self.window_s = ttl_s, clock, window_s
        self.per_student, self.per_client = per_student, per_client

    # the class
    def create(self) -> tuple[str, str]:
        """A new class: (code, host key). The key is kept only as its hash."""
        key = secrets.token_urlsafe(16)
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LEN))
            if self._create(code, key_hash(key), self.clock() + self.ttl_s):
                return code, key
        raise StoreDown("no free class code after 20 tries")

    def exists(self, code: str) -> bool:
        return bool(CODE.fullmatch(code or "")) and self._host_hash(code) is not None

    def is_host(self, code: str, key: str) -> bool:
        held = self._host_hash(code) if CODE.fullmatch(code or "") else None
        return held is not None and hmac.compare_digest(held, key_hash(key or ""))

    def _host(self, code: str, key: str) -> None:
        if not self.exists(code):
            raise Refused("unknown_class", code)
        if not self.is_host(code, key):
            raise Refused("not_host", code)

    # the lecturer
    def ask(self, code: str, key: str, questions: Sequence[Question]) -> None:
        """Ask these questions now (one, or a quiz phase): the class's question page shows them. A question asked
        again keeps its answers and its reveal (reset() clears them)."""
        self._host(code, key)
        if not 1 <= len(questions) <= ASKED_MAX:
            raise Refused("bad_question", f"{len(questions)} questions")
        self._ask(code, list(questions))

    def stop_asking(self, code: str, key: str) -> None:
        self._host(code, key)
        self._ask(code, [])

    def reveal(self, code: str, key: str, qids: Sequence[str]) -> None:
        self._host(code, key)
        self._reveal(code, list(qids), True)

    def reset(self, code: str, key: str, qids: Sequence[str]) -> None:
        """Forget the answers to these questions and their reveal: the class answers anew."""
        self._host(code, key)
        self._reveal(code, list(qids), False)
        self._forget(code, list(qids))

    def tally(self, code: str, qid: str, key: str | None = None) -> Tally:
        """The counts: the host's at any time, anyone's once the question is revealed."""
        if not self.exists(code):
            raise Refused("unknown_class", code)
        question, revealed = self._question(code, qid)
        if question is None:
            raise Refused("not_asked", qid)
        if not revealed and not self.is_host(code, key or ""):
            raise Refused("not_revealed", qid)
        return count(question, self._all_picks(code, qid), revealed)

    def question(self, code: str, qid: str, key: str) -> Question | None:
        """A question as asked, with its answer (the host's)."""
        self._host(code, key)
        return self._question(code, qid)[0]

    # the students
    def asking(self, code: str) -> Asking:
        if not self.exists(code):
            raise Refused("unknown_class", code)
        questions, revealed = self._asking(code)
        return Asking(tuple(q if q.qid in revealed else q.hidden() for q in questions), frozenset(revealed))

    def answer(self, code: str, student: str, qid: str, picks, client: str = "") -> tuple[int, ...]:
        """Store a student's pick (replacing the last one); returns it as stored. Refused: an unknown class, a
        question not asked now or already revealed, options not the question's, too many answers in the window."""
        if not STUDENT.fullmatch(student or ""):
            raise Refused("bad_student")
        if not CODE.fullmatch(code or "") or not QID.fullmatch(qid or ""):
            raise Refused("unknown_class" if not CODE.fullmatch(code or "") else "not_asked")
        try:
            got = tuple(sorted({int(p) for p in picks}))
        except (TypeError, ValueError):
            raise Refused("bad_pick", repr(picks)) from None
        if any(not 0 <= p < OPTIONS_MAX for p in got):
            raise Refused("bad_pick", repr(picks))
        self._answer(code, student, qid, got, client_hash(code, client))
        return got

    def picks(self, code: str, student: str, qids: Sequence[str]) -> dict[str, tuple[int, ...]]:
        """This student's own picks (only its own: a student never reads another's)."""
        if not STUDENT.fullmatch(student or "") or not CODE.fullmatch(code or ""):
            return {}
        return self._picks(code, student, list(qids))

    # storage, per backend
    @abstractmethod
    def ping(self) -> None: ...

    @abstractmethod
    def close(self) -> None: ...

    @abstractmethod
    def _create(self, code: str, host_hash: str, expires: float) -> bool: ...

    @abstractmethod
    def _host_hash(self, code: str) -> str | None: ...

    @abstractmethod
    def _ask(self, code: str, questions: list[Question]) -> None: ...

    @abstractmethod
    def _asking(self, code: str) -> tuple[list[Question], set[str]]: ...

    @abstractmethod
    def _question(self, code: str, qid: str) -> tuple[Question | None, bool]: ...

    @abstractmethod
    def _reveal(self, code: str, qids: list[str], revealed: bool) -> None: ...

    @abstractmethod
    def _forget(self, code: str, qids: list[str]) -> None: ...

    @abstractmethod
    def _answer(self, code: str, student: str, qid: str, picks: tuple[int, ...], client: str) -> None: ...

    @abstractmethod
    def _picks(self, code: str, student: str, qids: list[str]) -> dict[str, tuple[int, ...]]: ...

    @abstractmethod
    def _all_picks(self, code: str, qid: str) -> list[tuple[int, ...]]: ...


def open_store(url: str | None = None, **kw) -> ClassStore:
    """The store at `url` (default: ATTENTION_LAB_CLASS_STORE, else the SQLite file DEFAULT_SQLITE)."""
    import os
    url = url or os.environ.get(ENV) or f"sqlite:///{DEFAULT_SQLITE}"
    if url.startswith(("redis://", "rediss://", "unix://")):
        from classstore.redis_backend import RedisStore
        return RedisStore(url, **kw)
    if url.startswith("sqlite:///"):
        from classstore.sqlite_backend import SQLiteStore
        return SQLiteStore(Path(url.removeprefix("sqlite:///")), **kw)
    raise ValueError(f"{ENV}={url!r}: use redis://host:port/0, unix:///path/redis.sock or sqlite:///path")
