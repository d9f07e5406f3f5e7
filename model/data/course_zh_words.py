"""The words of a Chinese course-world text, as the models read them: the whole words the encoding groups pieces into
(model/data/bpe.word_spans: jieba cuts each run of CJK characters, punctuation a word of its own), so a word index of
a reference is the index of the same word in the encoding (plus one for [CLS])."""
from model.data.bpe import word_spans


def words_and_spans(text: str) -> tuple[list[str], list[tuple[int, int]]]:
    """(words, their (start, end) character spans):
    "奖杯放不进箱子" -> (["奖杯", "放不进", "箱子"], [(0, 2), (2, 5), (5, 7)])."""
    spans = word_spans(text)
    return [text[a:b] for a, b in spans], spans


def words(text: str) -> list[str]:
    """The words of text: "小猫没有过马路，因为它太累了。" -> 小猫 / 没有 / 过 / 马路 / ， / 因为 / 它 / 太累 / 了 / 。
    (the same words model/tasks/coref_realtext_zh.words reads)."""
    return words_and_spans(text)[0]
