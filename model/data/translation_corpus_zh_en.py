"""The Chinese→English pairs: the sentences of `translation_corpus` read the other way, and the possession
sentences with measure words of `translation_corpus_possession` (我有一只猫 → "i have a cat"). The pairs keep
their fields: `zh` is the source, `en` the target.

`train_pair(rng)` draws from both grammars, never a held-out template or word combination of either, and sometimes
drops a statement's full stop on both sides (typed Chinese often lacks it, as the tutorial's 我有一只猫 does);
`heldout_pairs()` is the fixed evaluation set: both grammars' held-out pairs, as generated.
"""
import random

from model.data import translation_corpus as corpus
from model.data import translation_corpus_possession as possession
from model.data.translation_corpus import Pair

POSSESSION_SHARE = 0.3      # of the training pairs
UNMARKED = 0.2              # share of the other grammar's statements fed without their full stop
HELDOUT_TEMPLATES = corpus.HELDOUT_TEMPLATES + possession.HELDOUT_TEMPLATES


def unmarked(pair: Pair) -> Pair:
    """The statement without its full stop on both sides ("… 。" / "… ."); a question as it is."""
    if not pair.zh.endswith("。"):
        return pair
    return Pair(pair.en.removesuffix(" ."), pair.zh.removesuffix("。"), pair.template, pair.combos)


def train_pair(rng: random.Random) -> Pair:
    """A training pair of either grammar (never held out)."""
    if rng.random() < POSSESSION_SHARE:
        return possession.train_pair(rng)
    pair = corpus.train_pair(rng)
    return unmarked(pair) if rng.random() < UNMARKED else pair


def heldout_pairs() -> list[Pair]:
    """The other grammar's 520 held-out pairs, then the possession grammar's 220."""
    return corpus.heldout_pairs() + possession.heldout_pairs()


def is_possession(pair: Pair) -> bool:
    return pair.template in possession.TEMPLATES


def all_words_en() -> list[str]:
    return corpus.all_words_en() + possession.all_words_en()


def all_text_zh() -> list[str]:
    return corpus.all_text_zh() + possession.all_text_zh()


def examples() -> list[Pair]:
    """The page's examples: the tutorial's sentence (a training sentence), then held-out pairs of both grammars."""
    zh, en = possession.TUTORIAL
    tutorial = Pair(en, zh, ("has", "pron", "one", False), frozenset({("owner", "i", "cat")}))
    held = possession.heldout_pairs()
    firsts = [held[i * possession.HELDOUT_PER_TEMPLATE] for i in range(len(possession.HELDOUT_TEMPLATES))]
    combos = held[len(possession.HELDOUT_TEMPLATES) * possession.HELDOUT_PER_TEMPLATE:][:3]
    return [tutorial] + firsts + combos + corpus.examples()[:6]
