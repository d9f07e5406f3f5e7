"""The shipped subword tokenizer: byte-level BPE (Sennrich et al. 2016; GPT-2's byte alphabet) trained with the
`tokenizers` library. Every byte is a base symbol, so no text needs [UNK]; each CJK character is split off before
BPE, so merges stay inside one character; special tokens sit at ids 0..6 and typed text cannot forge them.

Normalisation, stated once: lone surrogates (not Unicode scalar values) become U+FFFD, then NFC. For any text t,
decode(encode(t).ids) == normalize(t). A text gets a dummy leading space (unless it starts with a CJK
character) that decode removes, so a first word is the same token as mid-sentence.
Train with `python -m model.data.bpe --train` (deterministic: the same corpus gives the same file)."""
import argparse
import json
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

from model.data import zh_words
from model.engine.cache_sizes import ONCE, TOKENIZER_FILES

SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "[BOS]", "[EOS]")
PAD, UNK, CLS, SEP, MASK, BOS, EOS = range(len(SPECIALS))
ASSETS = Path(__file__).resolve().parents[2] / "assets"
DEFAULT_FILE = "bpe_8k.json"
DEFAULT_VOCAB = 8192
TRAINED_ON = ("wordnet", "fortunes", "fortunes-zh")   # the corpus sources the shipped merges were learned from
# Han, CJK punctuation, kana, Hangul syllables, full-width forms: each such character is its own pre-token
CJK = "\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef\U00020000-\U0002fa1f"
_CJK_CHAR = re.compile(f"[{CJK}]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_MASK_SPELLINGS = re.compile(r" ?(?:\[MASK\]|<mask>)", re.IGNORECASE)   # " <MASK>": the space belongs to it (lstrip)


@lru_cache(maxsize=ONCE)
def byte_decoder() -> dict[str, int]:
    """GPT-2's printable stand-in character for each byte, reversed: stand-in -> byte value."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), 256))
    chars, n = {}, 0
    for b in range(256):
        if b in keep:
            chars[b] = chr(b)
        else:
            chars[b], n = chr(256 + n), n + 1
    return {c: b for b, c in chars.items()}


def normalize(text: str) -> str:
    """Lone surrogates -> U+FFFD, then NFC: the text whose characters the spans of an Encoding index."""
    text = _SURROGATE.sub("\ufffd", text)
    return unicodedata.normalize("NFC", text)


_LEADS = ((0x80, 0x00), (0xE0, 0xC0), (0xF0, 0xE0), (0xF8, 0xF0))   # UTF-8 lead byte of a 1..4-byte char


def with_prefix(text: str) -> str:
    """A dummy space in front of a text that does not start with a CJK character (SentencePiece's
    add_dummy_prefix), so its first word is the same token as mid-sentence; decode removes it again."""
    return text if not text or _CJK_CHAR.match(text) else " " + text


def display(piece: bytes) -> str:
    """Readable text for one token's bytes: whole characters as themselves, stray bytes of a character split
    across tokens as '<0xE7>'; never U+FFFD."""
    out, i = [], 0
    while i < len(piece):
        lead = piece[i]
        n = next((k for k, (mask, want) in enumerate(_LEADS, 1) if lead & mask == want), 0)   # char length
        try:
            out.append(piece[i:i + n].decode("utf-8") if n and i + n <= len(piece) else None)
        except UnicodeDecodeError:
            out.append(None)
        if out[-1] is None:
            out[-1], n = f"<0x{lead:02X}>", 1
        i += n
    return "".join(out)


@dataclass(frozen=True)
class Encoding:
    """text: the normalised input; ids, pieces (readable) and spans (start, end) into `text`, one per token (T).
    Tokens that share a character (its bytes split across them) share its span; [CLS]/[SEP]/[BOS] are empty
    spans at the edges; a mask's span covers its typed spelling and the one space before it."""
    text: str
    ids: list[int]
    pieces: list[str]
    spans: list[tuple[int, int]]


_MARK = "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe00-\ufe0f\ufe20-\ufe2f\U0001f3fb-\U0001f3ff"
_ALNUM = rf"(?:(?![{CJK}])[^\W_]|[{_MARK}])"
# a CJK character; letters/digits (with marks, inner apostrophes); or one other visible character with its
# marks and zero-width-joined followers (an emoji family is one word)
_WORD = re.compile(rf"[{CJK}]|{_ALNUM}+(?:['\u2019]{_ALNUM}+)*|[^\s{CJK}](?:[{_MARK}]|\u200d[^\s{CJK}])*")
_CJK_CHAR = re.compile(rf"[{CJK}]")


@dataclass(frozen=True)
class Word:
    """A whole word of the text: its characters text[start:end] and the indices of its pieces in the Encoding."""
    text: str
    start: int
    end: int
    pieces: tuple[int, ...]


def is_special(i: int) -> bool:
    """Whether id i is one of SPECIALS."""
    return i < len(SPECIALS)


def word_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each word of text (see _WORD), a run of CJK characters cut into words by a segmenter
    (model/data/zh_words.py) rather than one word per character."""
    spans, run = [], None                       # run: [start, end] of the CJK characters met in a row
    for m in _WORD.finditer(text):
        cjk = _CJK_CHAR.fullmatch(m.group()) is not None
        if cjk and run is not None and run[1] == m.start():
            run[1] = m.end()
            continue
        if run is not None:
            spans += [(run[0] + a, run[0] + b) for a, b in zh_words.segments(text[run[0]:run[1]])]
            run = None
        if cjk:
            run = [m.start(), m.end()]
        else:
            spans.append(m.span())
    if run is not None:
        spans += [(run[0] + a, run[0] + b) for a, b in zh_words.segments(text[run[0]:run[1]])]
    return spans


def group_words(enc: Encoding, special=is_special) -> list[Word]:
    """Pieces grouped into words (Clark et al. 2019 average or sum attention over them). Words are found in the
    text (see _WORD); a piece belongs to the words its non-space characters touch, and words sharing a piece
    merge. A special token (special(id), touching no word) is a word of its own; a piece holding only whitespace
    belongs to no word."""
    owner = [-1] * len(enc.text)
    found = word_spans(enc.text)
    for w, (a, b) in enumerate(found):
        owner[a:b] = [w] * (b - a)
    groups: list[list] = []      # [first word, last word, piece indices]; first word None for a special
    for i, (a, b) in enumerate(enc.spans):
        touched = [owner[c] for c in range(a, b) if owner[c] >= 0]
        if special(enc.ids[i]) and not touched:
            groups.append([None, None, [i]])
        elif touched and groups and groups[-1][0] is not None and min(touched) <= groups[-1][1]:
            groups[-1][1] = max(groups[-1][1], max(touched))
            groups[-1][2].append(i)
        elif touched:
            groups.append([min(touched), max(touched), [i]])
    words = []
    for first, last, pieces in groups:
        if first is None:
            a = enc.spans[pieces[0]][0]
            words.append(Word(enc.pieces[pieces[0]], a, a, tuple(pieces)))
        else:
            a, b = found[first][0], found[last][1]
            words.append(Word(enc.text[a:b], a, b, tuple(pieces)))
    return words


def encode_around(text: str, cuts: list[tuple[int, int]], encode_plain, mask_id: int):
    """(ids, spans, pieces) of text: `encode_plain(part, start)` for the text between the cuts, one mask token
    (id mask_id, piece "[MASK]", span the cut) for each cut (start, end), in order."""
    ids, spans, pieces, pos = [], [], [], 0
    for a, b in cuts + [(len(text), len(text))]:
        if a > pos:
            more = encode_plain(text[pos:a], pos)
            ids, spans, pieces = ids + more[0], spans + more[1], pieces + more[2]
        if b > a:
            ids, spans, pieces = ids + [mask_id], spans + [(a, b)], pieces + ["[MASK]"]
        pos = b
    return ids, spans, pieces


class BPETokenizer:
    """encode/decode around a trained `tokenizers.Tokenizer` whose first seven ids are SPECIALS."""

    def __init__(self, tokenizer: Tokenizer, file: str | None = None):
        for i, s in enumerate(SPECIALS):
            if tokenizer.id_to_token(i) != s:
                raise ValueError(f"id {i} must be {s}, found {tokenizer.id_to_token(i)!r}")
        tokenizer.encode_special_tokens = True      # typed '[CLS]' is text, never the special token
        self.tokenizer, self.file = tokenizer, file
        table = byte_decoder()
        self._bytes = [s.encode() for s in SPECIALS]
        self._bytes += [bytes(table[c] for c in tokenizer.id_to_token(i)) for i in range(len(SPECIALS), len(self))]
        self._pieces = list(SPECIALS) + [display(b) for b in self._bytes[len(SPECIALS):]]

    def __len__(self) -> int:
        return self.tokenizer.get_vocab_size(with_added_tokens=True)

    @classmethod
    def from_file(cls, path: str | Path = ASSETS / DEFAULT_FILE) -> "BPETokenizer":
        path = Path(path)
        if not path.is_absolute() and not path.exists():
            path = ASSETS / path
        return cls(Tokenizer.from_file(str(path)), file=path.name)

    def to_dict(self, embed: bool = False) -> dict:
        """{'type': 'bpe', 'file': name in assets/} or, with embed (or no file), the tokenizer JSON itself."""
        if self.file and not embed:
            return {"type": "bpe", "file": self.file}
        return {"type": "bpe", "json": json.loads(self.tokenizer.to_str())}

    @classmethod
    def from_dict(cls, d: dict) -> "BPETokenizer":
        if d.get("type") != "bpe":
            raise ValueError(f"not a BPE tokenizer: type {d.get('type')!r}")
        if "json" in d:
            return cls(Tokenizer.from_str(json.dumps(d["json"])))
        return cls.from_file(d["file"])

    def piece(self, i: int) -> str:
        return self._pieces[i]

    def _encode_plain(self, text: str, start: int) -> tuple[list[int], list[tuple[int, int]], list[str]]:
        """ids, spans and pieces of text without masks; at the start of the input a dummy space is put in
        front (see with_prefix) and left out of the spans and the first piece. Where it would be a token on its
        own it is left out, unless the text starts with whitespace (then that token is piece '', span empty)."""
        prefixed = with_prefix(text) if start == 0 else text
        ids = self.tokenizer.encode(prefixed, add_special_tokens=False).ids
        if prefixed != text and self._bytes[ids[0]] == b" " and not text[0].isspace():
            prefixed, ids = text, self.tokenizer.encode(text, add_special_tokens=False).ids   # dummy would stand alone
        dummy = len(prefixed) - len(text)            # 1 or 0 bytes
        if b"".join(self._bytes[i] for i in ids) != prefixed.encode("utf-8"):
            raise RuntimeError(f"tokenizer lost bytes of {text[:40]!r}: its JSON has a lossy normalizer?")
        char_at = [c for c, ch in enumerate(text) for _ in range(len(ch.encode("utf-8")))]
        spans, pieces, b = [], [self._pieces[i] for i in ids], -dummy
        for i in ids:
            n = len(self._bytes[i])
            first, last = max(b, 0), b + n - 1
            spans.append((start + char_at[first], start + char_at[last] + 1) if last >= 0 else (start, start))
            b += n
        if dummy and ids:
            pieces[0] = display(self._bytes[ids[0]][1:])
        return ids, spans, pieces

    def encode(self, text: str, *, add_cls_sep: bool = False, bos: bool = False, masks: bool = False) -> Encoding:
        """Text -> Encoding. masks: '[MASK]' and '<mask>' in any case ('<MASK>') become the mask id (otherwise
        plain text, like every other special spelling). add_cls_sep: [CLS] ... [SEP]; bos: [BOS] first."""
        text = normalize(text)
        cuts = [(m.start(), m.end()) for m in _MASK_SPELLINGS.finditer(text)] if masks else []
        ids, spans, pieces = encode_around(text, cuts, self._encode_plain, MASK)
        if add_cls_sep:
            ids, spans = [CLS] + ids + [SEP], [(0, 0)] + spans + [(len(text), len(text))]
            pieces = ["[CLS]"] + pieces + ["[SEP]"]
        if bos:
            ids, spans, pieces = [BOS] + ids, [(0, 0)] + spans, ["[BOS]"] + pieces
        return Encoding(text, ids, pieces, spans)

    def decode(self, ids, skip_special: bool = False, strip_prefix: bool = True) -> str:
        """ids -> text; specials as their names unless skip_special. strip_prefix drops the dummy space of a
        text's first token (pass False for a continuation decoded alone). A byte sequence cut inside a
        character (a lone byte token) decodes to U+FFFD there. A mask token keeps the space before it:
        encode(masks=True) gives one typed space to the mask (it stands for a word, which would carry it), so
        "The [MASK] pulled" decodes as typed, not "The[MASK] pulled"; after a space, a Chinese character or
        nothing, none is added."""
        keep = [int(i) for i in ids if not (skip_special and i < len(SPECIALS))]
        out = bytearray()
        for i in keep:
            if i == MASK and out:
                last = bytes(out[-4:]).decode("utf-8", errors="ignore")[-1:]
                out += b" " if last and not last.isspace() and not _CJK_CHAR.match(last) else b""
            out += self._bytes[i]
        raw = bytes(out)
        if strip_prefix and keep and keep[0] >= len(SPECIALS) and raw.startswith(b" "):
            raw = raw[1:]
        return raw.decode("utf-8", errors="replace")


@lru_cache(maxsize=TOKENIZER_FILES)
def load(path: str = DEFAULT_FILE) -> BPETokenizer:
    """The shipped tokenizer (assets/bpe_8k.json), loaded once."""
    return BPETokenizer.from_file(path)


def train(texts, vocab_size: int = DEFAULT_VOCAB, min_frequency: int = 2) -> BPETokenizer:
    """Learn byte-level BPE merges on an iterable of strings (each normalised first)."""
    tok = Tokenizer(models.BPE())            # no unk_token: all 256 bytes are in the base vocabulary
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(f"[{CJK}]"), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
    ])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=min_frequency, show_progress=False,
                                  special_tokens=list(SPECIALS), initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator((with_prefix(normalize(t)) for t in texts), trainer)
    return BPETokenizer(tok)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="Train the shipped byte-level BPE on the real-text corpus.")
    parser.add_argument("--train", action="store_true", help="train on the corpus' train split and save")
    parser.add_argument("--vocab", type=int, default=DEFAULT_VOCAB)
    parser.add_argument("--out", default=str(ASSETS / DEFAULT_FILE))
    args = parser.parse_args(argv)
    if not args.train:
        parser.error("nothing to do: pass --train")
    from model.data import real_text
    docs = [d for d in real_text.load().train if d.source in TRAINED_ON]
    tok = train([d.text for d in docs], args.vocab)
    Path(args.out).write_text(tok.tokenizer.to_str(pretty=True) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {len(tok)} tokens, trained on {len(docs)} documents")


if __name__ == "__main__":
    main()
