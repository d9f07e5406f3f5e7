"""A model's BPE tokenizer file, read only where tokenizers live and only when it is one: the file a model's config
names ({"type": "bpe", "file": NAME}) must be a regular file inside assets/ (or, with "package", inside that
installed model package's own folder), at most MAX_BYTES (a 30k WordPiece vocabulary or the 8k BPE are about 1 MB),
valid JSON nested at most MAX_DEPTH deep, with at most MAX_VOCAB pieces and merges, that builds a tokenizer which
gives back every byte of a probe text. Anything else is a ValueError naming the file as `assets/NAME` (never the
server's own path), which the model's loader reports as a damaged checkpoint (model/handle.py). So a config naming
/dev/zero is not read until memory runs out, nor a 2M-entry vocabulary built for a minute."""
import json
import stat
from functools import lru_cache
from pathlib import Path

from model.data import bpe, packaged
from model.data.json_depth import json_depth_exceeds
from model.engine.cache_sizes import TOKENIZER_FILES

MAX_BYTES = 50 << 20           # a tokenizer file
MAX_VOCAB = 262_144            # pieces, and merges, of one tokenizer (the shipped BPE: 8,192)
MAX_DEPTH = 32                 # nesting of objects and arrays (a tokenizer file: 4)
PROBE = "The cafe refused, because it was closed. 餐厅 🍔 naïve\tZ\u0351\n0123 [MASK]"


def where(spec: dict) -> tuple[Path, str]:
    """(the file's path, how a message names it) of a BPE spec's file; ValueError when it would be read from
    outside assets/ or its package's folder."""
    name = spec.get("file")
    if not isinstance(name, str) or not name or "\0" in name:
        raise ValueError(f"the tokenizer's file name {name!r} is not a file name")
    if spec.get("package") is not None:
        root, shown = packaged.folder(str(spec["package"])), f"{spec['package']}/"
    else:
        root, shown = Path(bpe.ASSETS), "assets/"
    root = root.resolve()
    path = (root / name).resolve()
    if not path.is_relative_to(root) or path == root:
        raise ValueError(f"the tokenizer file {name!r} is outside {shown.rstrip('/')}: a model's tokenizer is read "
                         f"from there only")
    return path, shown + path.relative_to(root).as_posix()


def bpe_tokenizer(spec: dict) -> bpe.BPETokenizer:
    """The BPE tokenizer of a model's spec: its embedded JSON, or its file (checked as the module says)."""
    if "json" in spec:
        return _built(json.dumps(spec["json"]), "the tokenizer in the model's config")
    path, shown = where(spec)
    try:
        info = path.stat()
    except OSError:
        raise ValueError(f"{shown} is missing") from None
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"{shown} is not a regular file")
    if info.st_size > MAX_BYTES:
        raise ValueError(f"{shown} is {info.st_size:,} bytes; a tokenizer file is at most {MAX_BYTES:,}")
    return _read(str(path), shown, info.st_mtime_ns, info.st_size)


@lru_cache(maxsize=TOKENIZER_FILES)
def _read(path: str, shown: str, _mtime_ns: int, _size: int) -> bpe.BPETokenizer:
    """A checked file, read once per process while it is unchanged."""
    with open(path, "rb") as f:
        data = f.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise ValueError(f"{shown} is more than {MAX_BYTES:,} bytes; a tokenizer file is at most {MAX_BYTES:,}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{shown} is not UTF-8 text") from None
    tokenizer = _built(text, shown)
    tokenizer.file = shown.removeprefix("assets/")       # as a config names it (BPETokenizer.to_dict)
    return tokenizer


def _built(text: str, shown: str) -> bpe.BPETokenizer:
    """A BPE tokenizer from its JSON text, every failure a ValueError naming `shown`."""
    if json_depth_exceeds(text, MAX_DEPTH):
        raise ValueError(f"{shown} nests objects or arrays more than {MAX_DEPTH} levels deep")
    try:
        raw = json.loads(text)
    except ValueError as e:
        raise ValueError(f"{shown} is not valid JSON ({e})") from None
    model = raw.get("model") if isinstance(raw, dict) else None
    if not isinstance(model, dict) or not isinstance(model.get("vocab"), dict):
        raise ValueError(f"{shown} is not a tokenizer file (no model vocabulary)")
    for part in ("vocab", "merges"):
        if len(model.get(part) or ()) > MAX_VOCAB:
            raise ValueError(f"{shown} has {len(model[part]):,} {part}; a tokenizer has at most {MAX_VOCAB:,}")
    try:
        tokenizer = bpe.BPETokenizer(bpe.Tokenizer.from_str(text))
        tokenizer.encode(PROBE, masks=True)           # a lossy normalizer or missing byte pieces show here
    except Exception as e:                           # noqa: BLE001 - the tokenizers library raises bare Exception
        why = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
        raise ValueError(f"{shown} is not a tokenizer this app can read ({why})") from None
    return tokenizer
