"""How a shipped text model reads text: its tokenizer and the special tokens it was trained with around a
text, stored in its metadata as meta["text_input"] and used by every page, command and benchmark.

    "cls_sep"  [CLS] text [SEP]   (BERT-style encoders)
    "bos"      [BOS] text          (GPT-style decoders: the stream they were trained on starts each text so)
    "plain"    text                (an encoder-decoder's source)
"""
from model.data.word_tokenizer import Encoding, WordTokenizer

RULES = {"cls_sep": {"add_cls_sep": True}, "bos": {"bos": True}, "plain": {}}


def rule_of(meta: dict) -> str:
    """The model's text rule; ValueError naming the model when its metadata lacks a known one."""
    rule = meta.get("text_input")
    if rule not in RULES:
        raise ValueError(f"model {meta.get('name', '?')!r} states no text rule: meta['text_input'] is {rule!r}, "
                         f"expected one of {sorted(RULES)}")
    return rule


def tokenizer_from_spec(spec: dict):
    """A tokenizer from a model's meta["tokenizer"]: {"type": "bpe", ...} or {"type": "word", "vocab": [...]}."""
    kind = spec.get("type")
    if kind == "bpe":
        from model.data.bpe import BPETokenizer
        return BPETokenizer.from_dict(spec)
    if kind == "word":
        return WordTokenizer.from_dict(spec)
    raise ValueError(f"unknown tokenizer type {kind!r} (known: 'bpe', 'word')")


def tokenizer_of(meta: dict):
    """The tokenizer stored in the model's metadata."""
    return tokenizer_from_spec(meta["tokenizer"])


def encode(tokenizer: WordTokenizer, text: str, rule: str) -> Encoding:
    """Text -> ids with the model's special tokens around it."""
    return tokenizer.encode(text, **RULES[rule])
