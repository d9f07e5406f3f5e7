"""How a shipped text model reads text: its tokenizer and the special tokens it was trained with around a
text, stored in its metadata as meta["text_input"] and used by every page, command and benchmark.

    "cls_sep"  [CLS] text [SEP]   (BERT-style encoders)
    "bos"      [BOS] text          (GPT-style decoders: the stream they were trained on starts each text so)
    "plain"    text                (an encoder-decoder's source)

Whatever the tokenizer (course-world words or byte-level BPE), `encode` gives one TextEncoding: the ids, the
tokens as shown, which are unknown, and which tokens make each whole word (a person thinks in words).
"""
from dataclasses import dataclass
from functools import lru_cache

from model.data import bpe, tokenizer_files
from model.data.word_tokenizer import WordTokenizer
from model.data.wordpiece import WordPieceTokenizer
from model.engine.cache_sizes import TOKENIZER_FILES

RULES = {"cls_sep": {"add_cls_sep": True}, "bos": {"bos": True}, "plain": {}}
FRONT = {"cls_sep": ("[CLS]",), "bos": ("[BOS]",), "plain": ()}    # the tokens a rule puts in front of the text
SPECIAL_TOKENS = frozenset({"[CLS]", "[SEP]", "[BOS]", "[EOS]", "[PAD]"})
SENTENCE_ENDS = tuple(".!?。！？")


def sentence_starts(tokens) -> tuple[int, ...]:
    """Positions of the first token of each sentence: the first token that is not a special one, and each token
    after one that ends a sentence (. ! ? and their full-width forms)."""
    out, start = [], True
    for i, t in enumerate(tokens):
        if t in SPECIAL_TOKENS:
            continue
        if start:
            out.append(i)
        start = t.strip().endswith(SENTENCE_ENDS)
    return tuple(out)


@dataclass(frozen=True)
class TextEncoding:
    """ids, tokens (as shown) and unknown flags, one per token (T); words: one tuple of token indices per
    whole word, in order (a special token is a word of its own); word_texts: each word as typed."""
    ids: list[int]
    tokens: list[str]
    unknown: list[bool]
    words: tuple[tuple[int, ...], ...]
    word_texts: tuple[str, ...]

    def cut(self, limit: int) -> "TextEncoding":
        """The first `limit` tokens, and the words whose tokens all lie among them."""
        keep = [i for i, w in enumerate(self.words) if max(w) < limit]
        return TextEncoding(self.ids[:limit], self.tokens[:limit], self.unknown[:limit],
                            tuple(self.words[i] for i in keep), tuple(self.word_texts[i] for i in keep))


def rule_of(meta: dict) -> str:
    """The model's text rule; ValueError naming the model when its metadata lacks a known one."""
    rule = meta.get("text_input")
    if rule not in RULES:
        raise ValueError(f"model {meta.get('name', '?')!r} states no text rule: meta['text_input'] is {rule!r}, "
                         f"expected one of {sorted(RULES)}")
    return rule


def tokenizer_from_spec(spec: dict):
    """A tokenizer from a model's meta["tokenizer"]: {"type": "bpe", ...}, {"type": "word", "vocab": [...]} or
    {"type": "wordpiece", "package": ..., "member": ..., "sha256": ...} (a pretrained model's own file)."""
    kind = spec.get("type")
    if kind == "wordpiece":
        return _wordpiece(spec["package"], spec.get("archive"), spec["member"], spec["sha256"])
    if kind == "bpe":                            # a shipped file is loaded once per process
        return tokenizer_files.bpe_tokenizer(spec)     # confined to assets/, bounded, checked
    if kind == "word":
        return WordTokenizer.from_dict(spec)
    raise ValueError(f"unknown tokenizer type {kind!r} (known: 'bpe', 'word', 'wordpiece')")


@lru_cache(maxsize=TOKENIZER_FILES)
def _wordpiece(package: str, archive: str | None, member: str, sha256: str) -> WordPieceTokenizer:
    """A packaged WordPiece tokenizer, read once per process."""
    return WordPieceTokenizer.from_package({"package": package, "archive": archive, "member": member,
                                            "sha256": sha256})


def tokenizer_of(meta: dict):
    """The tokenizer stored in the model's metadata."""
    return tokenizer_from_spec(meta["tokenizer"])


def encode(tokenizer, text: str, rule: str, masks: bool = False) -> TextEncoding:
    """Text -> TextEncoding with the model's special tokens around it. masks: a BPE tokenizer turns a typed
    [MASK] or <mask> into the mask token (a word tokenizer reads [mask] as the word it is)."""
    if isinstance(tokenizer, WordPieceTokenizer):
        enc = tokenizer.encode(text, masks=masks, **RULES[rule])
        words = bpe.group_words(enc, tokenizer.is_special)
        return TextEncoding(list(enc.ids), list(enc.pieces), [i == tokenizer.unk for i in enc.ids],
                            tuple(w.pieces for w in words), tuple(w.text for w in words))
    if isinstance(tokenizer, bpe.BPETokenizer):
        enc = tokenizer.encode(text, masks=masks, **RULES[rule])
        words = bpe.group_words(enc)
        return TextEncoding(list(enc.ids), list(enc.pieces), [False] * len(enc.ids),
                            tuple(w.pieces for w in words), tuple(w.text for w in words))
    enc = tokenizer.encode(text, **RULES[rule])
    return TextEncoding(enc.ids, enc.tokens, enc.unknown, tuple((i,) for i in range(len(enc.ids))),
                        tuple(enc.tokens))
