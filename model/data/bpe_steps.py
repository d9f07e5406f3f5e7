"""BPE learning step by step, for teaching (Sennrich, Haddow & Birch 2016, "Neural Machine Translation of Rare
Words with Subword Units", Algorithm 1): split the text into words at whitespace, start from characters, and
repeatedly merge the most frequent adjacent pair of symbols.

Counting follows `tokenizers`' BpeTrainer: every adjacent pair in every word counts (so 'aaa' holds the pair
(a, a) twice), and a merge joins pairs left to right without overlap ('aaa' -> 'aa' 'a'). Ties go, as there,
to the pair whose symbols are older: each symbol has a rank (the text's characters in code-point order, then
each merged symbol in the order it was learned) and the smallest (rank of left, rank of right) wins.
The shipped tokenizer (model/data/bpe.py) works on bytes; this one on characters, which a page can show."""
from collections import Counter
from dataclasses import dataclass


@dataclass(frozen=True)
class Step:
    """One merge: the pair joined, how often it occurred before the merge, and every word of the text (in
    order, repeats kept) as its pieces after the merge."""
    pair: tuple[str, str]
    count: int
    segmented: list[list[str]]


def merge_word(word: tuple[str, ...], pair: tuple[str, str]) -> tuple[str, ...]:
    """('l', 'o', 'w') with pair ('l', 'o') -> ('lo', 'w'); left to right, no overlaps."""
    out, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
            out.append(word[i] + word[i + 1])
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


def pair_counts(words: Counter) -> Counter:
    """Counts of adjacent symbol pairs, each word weighted by how often it occurs."""
    counts: Counter = Counter()
    for word, n in words.items():
        for pair in zip(word, word[1:]):
            counts[pair] += n
    return counts


def learn(text: str, k: int) -> list[Step]:
    """The first k merges on `text` (fewer if no pair is left). Words: whitespace-separated, as characters.

    Returns one Step per merge, in the order learned."""
    words = Counter(tuple(w) for w in text.split())
    rank = {c: r for r, c in enumerate(sorted(set("".join(text.split()))))}
    steps: list[Step] = []
    for _ in range(k):
        counts = pair_counts(words)
        if not counts:
            break
        pair = min(counts, key=lambda p: (-counts[p], rank[p[0]], rank[p[1]]))
        rank.setdefault(pair[0] + pair[1], len(rank))
        words = Counter({merge_word(w, pair): n for w, n in words.items()})
        steps.append(Step(pair, counts[pair], segment(text, [s.pair for s in steps] + [pair])))
    return steps


def _apply(word: tuple[str, ...], merges: list[tuple[str, str]]) -> tuple[str, ...]:
    for pair in merges:
        word = merge_word(word, pair)
    return word


def segment(text: str, merges: list[tuple[str, str]]) -> list[list[str]]:
    """Apply learned merges, in order, to each whitespace-separated word of `text`."""
    return [list(_apply(tuple(w), merges)) for w in text.split()]
