"""The course world's Winograd-style schemas (Levesque et al. 2012): two noun classes each, the predicates that fit
each class, and frames in which the predicate after "it", never the word order, decides its referent.

Each noun class is a hand-picked core (the lecture's nouns) grown with WordNet 3.0 nouns of the same kind
(model/data/wordnet_lexicon.py), so most held-out sentences hold words a 328-word vocabulary never had. Noun pairs
are divided train / val / held-out and two frames per schema are held out; the classic lecture pairs are always
held out.
"""
import functools
import random
from dataclasses import dataclass, replace

from model.data import wordnet_lexicon
from model.data.course_samples import Sample, ref_to
from model.data.word_tokenizer import split_words


@dataclass(frozen=True)
class Schema:
    """Two noun classes, the predicates that fit each, and frames with slots {a}, {b}, {p}."""
    a_nouns: tuple
    b_nouns: tuple
    a_preds: tuple
    b_preds: tuple
    frames: tuple        # each frame contains "because it {p}"; {a}/{b} in either order
    b_modifiers: tuple = ("",)


SCHEMAS = {
    "venue_dish": Schema(
        a_nouns=("restaurant", "cafe", "bakery", "diner", "bistro", "canteen", "pizzeria", "bar", "hotel",
                 "pub", "deli", "tavern", "cafeteria", "inn", "buffet", "steakhouse"),
        b_nouns=("sandwich", "soup", "salad", "pizza", "burger", "pie", "cake", "pasta", "curry", "stew",
                 "omelette", "taco", "steak", "risotto", "pancake", "quiche"),
        b_modifiers=("", "", "ham", "cheese", "chicken", "tomato", "mushroom", "spicy"),
        a_preds=("only cooks vegetarian food", "was too busy", "had no free tables", "only serves fish",
                 "was about to close", "was short of staff", "had run out of bread", "does not take cards",
                 "only opens at night", "had a new chef"),
        b_preds=("was too salty", "was cold", "was burnt", "had gone stale", "was too spicy", "tasted bland",
                 "had too much cheese", "was not vegetarian", "was undercooked", "smelled strange"),
        frames=("the {a} refused to serve me a {b} because it {p} .",
                "the {a} would not sell us the {b} because it {p} .",
                "i did not order a {b} at the {a} because it {p} .",
                "my friend skipped the {b} from the {a} because it {p} .",
                "we sent the {b} back to the {a} because it {p} .",
                "the {b} from the {a} disappointed us because it {p} .",
                "the {a} took the {b} off the menu because it {p} .",
                "nobody ate the {b} at the {a} because it {p} .")),
    "animal_place": Schema(
        a_nouns=("animal", "dog", "cat", "horse", "cow", "fox", "deer", "rabbit", "goat", "sheep", "pig",
                 "duck", "raccoon", "bear", "wolf", "mouse"),
        b_nouns=("street", "road", "river", "bridge", "field", "park", "yard", "square", "lane", "highway",
                 "track", "stream", "path", "garden", "avenue", "canal"),
        a_preds=("was too tired", "was too scared", "was very old", "was hurt", "was too lazy", "felt sleepy",
                 "was afraid of cars", "was too hungry", "was very slow", "was too weak"),
        b_preds=("was too wide", "was too busy", "was flooded", "was too long", "was covered in ice",
                 "was under repair", "was too dark", "was too muddy", "was blocked", "was too steep"),
        frames=("the {a} didn't cross the {b} because it {p} .",
                "the {a} did not walk along the {b} because it {p} .",
                "the {a} stayed away from the {b} because it {p} .",
                "the {a} refused to enter the {b} because it {p} .",
                "the farmer led the {a} away from the {b} because it {p} .",
                "the {b} stopped the {a} because it {p} .",
                "the {b} slowed the {a} down because it {p} .",
                "the {b} was too much for the {a} because it {p} .")),
    "object_container": Schema(
        a_nouns=("trophy", "book", "laptop", "lamp", "vase", "guitar", "ball", "statue", "pillow", "bottle",
                 "painting", "helmet", "kettle", "toy", "clock", "camera"),
        b_nouns=("suitcase", "box", "bag", "drawer", "basket", "cupboard", "backpack", "crate", "case",
                 "trunk", "bucket", "locker", "closet", "cabinet", "jar", "tin"),
        a_preds=("was too big", "was too large", "was too tall", "was too wide", "was too bulky",
                 "was too long", "was huge", "was too round", "was enormous", "was oversized"),
        b_preds=("was too small", "was too narrow", "was already full", "was too short", "was locked",
                 "was too tiny", "was stuck shut", "was too shallow", "was packed", "was too cramped"),
        frames=("the {a} didn't fit into the {b} because it {p} .",
                "the {a} would not go in the {b} because it {p} .",
                "i could not put the {a} in the {b} because it {p} .",
                "she failed to pack the {a} into the {b} because it {p} .",
                "he tried to squeeze the {a} into the {b} but it {p} .",
                "the {b} could not hold the {a} because it {p} .",
                "the {b} had no room for the {a} because it {p} .",
                "the {b} did not take the {a} because it {p} .")),
}
# WordNet roots each noun class grows from: (lemma, sense, hyponym depth, only sense-tagged lemmas)
GROWTH = {
    "venue_dish": ([("restaurant", 1, 2, False)],
                   [("soup", 1, 1, False), ("sandwich", 1, 1, False), ("pastry", 2, 2, False)]),
    "animal_place": ([("dog", 1, 2, True), ("horse", 1, 1, True), ("bird", 1, 2, True), ("mammal", 1, 3, True)],
                     [("stream", 1, 1, False), ("bridge", 1, 1, False), ("thoroughfare", 1, 2, True),
                      ("road", 1, 2, True)]),
    "object_container": ([("stringed_instrument", 1, 2, False), ("toy", 1, 2, True), ("lamp", 1, 2, True)],
                         [("bag", 1, 2, True), ("box", 1, 2, True), ("vessel", 3, 2, True), ("case", 5, 1, False)]),
}
# WordNet lemmas whose everyday sense is another kind of thing (a "jade" horse, a "sub" sandwich), or that
# the predicates do not fit
NOT_GROWN = frozenset("""
special viand mold stock chip crisp grill buttery automat caff estaminet cybercafe rotisserie sub torpedo wedge
zep western bomber grinder hero wrap butty julienne marmite potage pottage run branch line flash spot top hobby
slide swing string chordophone grand upright clavier cither zithern cittern cithern citole gittern cembalo
pianoforte poll roller queen painter pussy jade plug poster hack mount bay toy flat safe skin pocket envelope
well butt stoop still retort mortar drum scoop compact kit shoe sleeve quiver portfolio puff napoleon chou dowdy
pandowdy patty bouchee timbale streusel frangipane livestock stock buck blower bat primate cur headstream
corduroy drive pike spur artery impasse highroad thruway shortcut overcrossing flyover borsh borsht borshch
bortsch lobscuse hoagy snowball balloon rattle slingshot puppet spotlight streetlight bulb torch birdbath
washbasin washbowl tank boiler basin bath reservoir dipper gourd flask urn pitcher pail coffin mailbox snuffbox
notecase billfold pocketbook cardcase locket pillbox baggage luggage saddlebag haversack purse handbag
""".split())
MAX_GROWN = 24         # grown nouns added per class at most, in WordNet's order


def _grow(core: tuple, roots: list, taken: set) -> tuple:
    """core nouns + up to MAX_GROWN WordNet nouns under roots (taken from each root in turn) that no other
    class holds."""
    lists = [wordnet_lexicon.hyponyms(lemma, sense, depth, tagged) for lemma, sense, depth, tagged in roots]
    grown = []
    for i in range(max(map(len, lists))):
        for w in [ws[i] for ws in lists if i < len(ws)]:
            if w not in NOT_GROWN and w not in core and w not in taken and w not in grown:
                grown.append(w)
    return tuple(core) + tuple(grown[:MAX_GROWN])


def _grown_schemas(core: dict) -> dict:
    """SCHEMAS with every noun class grown; a noun lands in one class only (the core lists win)."""
    taken = {n for s in core.values() for n in s.a_nouns + s.b_nouns}
    out = {}
    for name, s in core.items():
        a_roots, b_roots = GROWTH[name]
        a = _grow(s.a_nouns, a_roots, taken)
        taken |= set(a)
        b = _grow(s.b_nouns, b_roots, taken)
        taken |= set(b)
        out[name] = replace(s, a_nouns=a, b_nouns=b)
    return out


CORE_NOUNS = {name: (s.a_nouns, s.b_nouns) for name, s in SCHEMAS.items()}
SCHEMAS = _grown_schemas(SCHEMAS)
HELDOUT_FRAMES = {"venue_dish": (3, 6), "animal_place": (2, 6), "object_container": (2, 7)}
# the classic lecture pairs are always held out, so their sentences can never be in training
CLASSIC_PAIRS = {("restaurant", "sandwich"), ("animal", "street"), ("trophy", "suitcase")}

def schema_sentence(name: str, frame: int, a: str, b: str, side: str, pred: int, mod: str = "") -> Sample:
    """One schema sentence whose pronoun refers to noun a (side "a") or b (side "b")."""
    s = SCHEMAS[name]
    p = (s.a_preds if side == "a" else s.b_preds)[pred]
    b_phrase = f"{mod} {b}".strip()
    text = s.frames[frame].format(a=a, b=b_phrase, p=p)
    words = split_words(text)
    k = words.index("it")
    return Sample(text, (ref_to(words, k, a if side == "a" else b, k),), name, frame, (a, b),
                  f"{name}|{frame}|{a}|{b}|{pred}|{mod}")


def pair_splits(name: str) -> dict[str, list[tuple[str, str]]]:
    """All (a, b) noun pairs of a schema split into train (70%), val (10%), heldout (20%)."""
    return {k: list(v) for k, v in _pair_splits(name).items()}


@functools.cache
def _pair_splits(name: str) -> dict[str, list[tuple[str, str]]]:
    s = SCHEMAS[name]
    pairs = [(a, b) for a in s.a_nouns for b in s.b_nouns]
    random.Random(f"pairs-{name}").shuffle(pairs)
    classic = [p for p in pairs if p in CLASSIC_PAIRS]
    rest = [p for p in pairs if p not in CLASSIC_PAIRS]
    n_held, n_val = int(0.2 * len(pairs)) - len(classic), int(0.1 * len(pairs))
    return {"heldout": classic + rest[:n_held], "val": rest[n_held:n_held + n_val],
            "train": rest[n_held + n_val:]}


def split_spec(split: str, name: str):
    """(pairs, frames) a split draws from: val/heldout_pairs use the training frames, heldout_frames
    uses the training pairs with the held-out frames."""
    pairs, held = pair_splits(name), list(HELDOUT_FRAMES[name])
    frames = [i for i in range(len(SCHEMAS[name].frames)) if i not in held]
    return {"train": (pairs["train"], frames), "val": (pairs["val"], frames),
            "heldout_pairs": (pairs["heldout"], frames), "heldout_frames": (pairs["train"], held)}[split]

