"""A BERT WordPiece tokenizer (a pretrained model's own `tokenizer.json`, run by `tokenizers`) behind the same
interface as the shipped byte-level BPE (model/data/bpe.py): encode -> bpe.Encoding with readable pieces and
spans into the text, decode, piece, len. Pieces are written as WordPiece writes them ("##ing" continues a word);
the text is lower-cased and accents kept, as the model's normalizer does."""
import json
import re

from tokenizers import Tokenizer

from model.data import bpe, packaged

_MASK_SPELLINGS = re.compile(r"\[MASK\]|<mask>", re.IGNORECASE)
SPECIAL_NAMES = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


class WordPieceTokenizer:
    """encode/decode around a BERT `tokenizers.Tokenizer` (its truncation and padding switched off)."""

    def __init__(self, tokenizer: Tokenizer, source: dict | None = None):
        tokenizer.no_truncation()
        tokenizer.no_padding()
        tokenizer.encode_special_tokens = True      # typed '[CLS]' is text, never the special token
        self.tokenizer, self.source = tokenizer, source
        ids = {name: tokenizer.token_to_id(name) for name in SPECIAL_NAMES}
        missing = [name for name, i in ids.items() if i is None]
        if missing:
            raise ValueError(f"not a BERT WordPiece vocabulary: no {', '.join(missing)}")
        self.pad, self.unk, self.cls, self.sep, self.mask = (ids[n] for n in SPECIAL_NAMES)
        self.specials = frozenset(ids.values())
        self._pieces = [tokenizer.id_to_token(i) for i in range(len(self))]

    def __len__(self) -> int:
        return self.tokenizer.get_vocab_size(with_added_tokens=True)

    @classmethod
    def from_package(cls, spec: dict) -> "WordPieceTokenizer":
        """From an installed package's file: spec {"package", "archive" (optional), "member", "sha256"}."""
        data = packaged.read_verified(spec["package"], spec.get("archive"), spec["member"], spec["sha256"])
        return cls(Tokenizer.from_str(data.decode("utf-8")), source=spec)

    def to_dict(self) -> dict:
        return {"type": "wordpiece", **(self.source or {"json": json.loads(self.tokenizer.to_str())})}

    def is_special(self, i: int) -> bool:
        """[PAD], [CLS], [SEP], [MASK] and [UNK] (an [UNK] that stands for typed text is still a word's piece)."""
        return i in self.specials

    def piece(self, i: int) -> str:
        return self._pieces[i]

    def _encode_plain(self, text: str, start: int) -> tuple[list[int], list[tuple[int, int]], list[str]]:
        enc = self.tokenizer.encode(text, add_special_tokens=False)
        return list(enc.ids), [(start + a, start + b) for a, b in enc.offsets], list(enc.tokens)

    def encode(self, text: str, *, add_cls_sep: bool = False, bos: bool = False, masks: bool = False) -> bpe.Encoding:
        """Text -> bpe.Encoding. masks: '[MASK]' and '<mask>' in any case become the mask id (otherwise plain
        text). add_cls_sep: [CLS] ... [SEP]. A WordPiece model has no [BOS]: bos is refused."""
        if bos:
            raise ValueError("a WordPiece encoder has no [BOS] token")
        text = bpe.normalize(text)
        cuts = [(m.start(), m.end()) for m in _MASK_SPELLINGS.finditer(text)] if masks else []
        ids, spans, pieces = bpe.encode_around(text, cuts, self._encode_plain, self.mask)
        if add_cls_sep:
            ids, spans = [self.cls] + ids + [self.sep], [(0, 0)] + spans + [(len(text), len(text))]
            pieces = ["[CLS]"] + pieces + ["[SEP]"]
        return bpe.Encoding(text, ids, pieces, spans)

    def decode(self, ids, skip_special: bool = False, strip_prefix: bool = True) -> str:
        """ids -> text (lower-cased, as the model read it); specials as their names unless skip_special."""
        keep = [int(i) for i in ids if not (skip_special and int(i) in self.specials and int(i) != self.unk)]
        return self.tokenizer.decode(keep, skip_special_tokens=False)
