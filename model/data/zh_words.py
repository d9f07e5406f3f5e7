"""Chinese words, as a segmenter reads them: jieba (the segmenter the course texts name) cuts a run of Chinese
characters into dictionary words ("我有一只猫" -> 我 / 有 / 一只 / 猫), where a character-by-character reading would
make every character a word. Used for the whole-word views and pronoun answers (model/data/bpe.group_words)."""
import logging
from functools import lru_cache

RUNS_CACHED = 4096              # distinct runs of Chinese text kept segmented per process


@lru_cache(maxsize=RUNS_CACHED)
def segments(run: str) -> tuple[tuple[int, int], ...]:
    """(start, end) of each word of `run` (characters of one CJK run, no spaces), covering it in order."""
    # imported here: its dictionary loads on first use (about a second), and only Chinese text needs it
    import jieba
    jieba.setLogLevel(logging.WARNING)
    return tuple((a, b) for _word, a, b in jieba.tokenize(run))
