"""The class store in Redis (classstore/store.py's interface): what every replica of a class reaches
(`python -m serve up` starts it append-only with `appendfsync always`; deploy/k8s/redis.yaml in a cluster).

Keys of a class CODE, each expiring with the class (EXPIREAT its end, TTL_S after it started):
  class:CODE                 hash: host (the key's sha256), expires, asking (qids, space-separated),
                             shape:QID ("options,multi": what the answer script checks a pick against)
  class:CODE:questions       hash: qid -> the question (JSON, with its answer)
  class:CODE:revealed        set of qids
  class:CODE:answers:QID     hash: student id -> picks ("0,2")
  class:CODE:rate:s:ID, class:CODE:rate:c:HASH   counters living WINDOW_S seconds
An answer is one Lua script (atomic: the class, the rate, the question asked and not revealed, the options, then
the write), so a reveal never lets a late answer in. Connections fail fast (1 s to connect, 2 s a command, one
retry on a fresh connection after a restart) and raise StoreDown, so a page says so instead of hanging."""
from classstore.store import ClassStore, Question, Refused, StoreDown, decode_picks, encode_picks

ANSWER = """
local cls = KEYS[1]
if redis.call('EXISTS', cls) == 0 then return 'unknown_class' end
local a = redis.call('INCR', KEYS[3])
if a == 1 then redis.call('EXPIRE', KEYS[3], ARGV[4]) end
local b = redis.call('INCR', KEYS[4])
if b == 1 then redis.call('EXPIRE', KEYS[4], ARGV[4]) end
if a > tonumber(ARGV[5]) or b > tonumber(ARGV[6]) then return 'too_fast' end
local asking = ' ' .. (redis.call('HGET', cls, 'asking') or '') .. ' '
if not string.find(asking, ' ' .. ARGV[1] .. ' ', 1, true) then return 'not_asked' end
if redis.call('SISMEMBER', cls .. ':revealed', ARGV[1]) == 1 then return 'revealed' end
local shape = redis.call('HGET', cls, 'shape:' .. ARGV[1])
if not shape then return 'not_asked' end
local n, multi = string.match(shape, '^(%d+),(%d)$')
n = tonumber(n)
local picked = 0
for p in string.gmatch(ARGV[3], '%d+') do
  if tonumber(p) >= n then return 'bad_pick' end
  picked = picked + 1
end
if multi == '0' and picked ~= 1 then return 'bad_pick' end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('EXPIREAT', KEYS[2], redis.call('HGET', cls, 'expires'))
return 'ok'
"""

CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'host', ARGV[1], 'expires', ARGV[2], 'asking', '')
redis.call('EXPIREAT', KEYS[1], ARGV[2])
return 1
"""


class RedisStore(ClassStore):
    backend = "redis"

    def __init__(self, url: str, **kw):
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry
        super().__init__(**kw)
        self.url = url
        self._errors = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError,
                        redis.exceptions.BusyLoadingError, redis.exceptions.ReadOnlyError, OSError)
        self.r = redis.Redis.from_url(url, decode_responses=True, socket_connect_timeout=1, socket_timeout=2,
                                      retry=Retry(NoBackoff(), 1), health_check_interval=15)
        self._answer_script = self.r.register_script(ANSWER)
        self._create_script = self.r.register_script(CREATE)

    def _do(self, fn):
        try:
            return fn()
        except self._errors as e:
            raise StoreDown(f"the class store (Redis at {self.url}) does not answer: {e}") from e

    @staticmethod
    def _k(code: str, *parts: str) -> str:
        return ":".join(("class", code, *parts))

    def ping(self) -> None:
        self._do(self.r.ping)

    def close(self) -> None:
        self.r.close()

    def _create(self, code: str, host_hash: str, expires: float) -> bool:
        return bool(self._do(lambda: self._create_script(keys=[self._k(code)], args=[host_hash, int(expires)])))

    def _host_hash(self, code: str) -> str | None:
        return self._do(lambda: self.r.hget(self._k(code), "host"))

    def _ask(self, code: str, questions: list[Question]) -> None:
        def ask():
            expires = int(self.r.hget(self._k(code), "expires") or 0)
            if not expires:
                raise Refused("unknown_class", code)
            pipe = self.r.pipeline(transaction=True)
            if questions:
                pipe.hset(self._k(code, "questions"), mapping={q.qid: q.to_json() for q in questions})
                pipe.expireat(self._k(code, "questions"), expires)
            shapes = {f"shape:{q.qid}": f"{q.n},{int(q.multi)}" for q in questions}
            pipe.hset(self._k(code), mapping={"asking": " ".join(q.qid for q in questions), **shapes})
            pipe.execute()
        self._do(ask)

    def _asking(self, code: str):
        def asking():
            qids = (self.r.hget(self._k(code), "asking") or "").split()
            if not qids:
                return [], set()
            pipe = self.r.pipeline(transaction=False)
            pipe.hmget(self._k(code, "questions"), qids)
            pipe.smembers(self._k(code, "revealed"))
            bodies, revealed = pipe.execute()
            return [Question.from_json(b) for b in bodies if b], set(revealed) & set(qids)
        return self._do(asking)

    def _question(self, code: str, qid: str):
        def question():
            pipe = self.r.pipeline(transaction=False)
            pipe.hget(self._k(code, "questions"), qid)
            pipe.sismember(self._k(code, "revealed"), qid)
            body, revealed = pipe.execute()
            return (Question.from_json(body), bool(revealed)) if body else (None, False)
        return self._do(question)

    def _reveal(self, code: str, qids: list[str], revealed: bool) -> None:
        def reveal():
            key = self._k(code, "revealed")
            if not qids:
                return
            if revealed:
                expires = int(self.r.hget(self._k(code), "expires") or 0)
                pipe = self.r.pipeline(transaction=True)
                pipe.sadd(key, *qids)
                pipe.expireat(key, expires)
                pipe.execute()
            else:
                self.r.srem(key, *qids)
        self._do(reveal)

    def _forget(self, code: str, qids: list[str]) -> None:
        if qids:
            self._do(lambda: self.r.delete(*(self._k(code, "answers", q) for q in qids)))

    def _answer(self, code: str, student: str, qid: str, picks: tuple[int, ...], client: str) -> None:
        keys = [self._k(code), self._k(code, "answers", qid), self._k(code, "rate", "s", student),
                self._k(code, "rate", "c", client)]
        args = [qid, student, encode_picks(picks), self.window_s, self.per_student, self.per_client]
        said = self._do(lambda: self._answer_script(keys=keys, args=args))
        if said != "ok":
            raise Refused(said, qid)

    def _picks(self, code: str, student: str, qids: list[str]):
        def picks():
            pipe = self.r.pipeline(transaction=False)
            for q in qids:
                pipe.hget(self._k(code, "answers", q), student)
            return {q: decode_picks(p) for q, p in zip(qids, pipe.execute()) if p is not None}
        return self._do(picks) if qids else {}

    def _all_picks(self, code: str, qid: str):
        return [decode_picks(p) for p in self._do(lambda: self.r.hvals(self._k(code, "answers", qid)))]
