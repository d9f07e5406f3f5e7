"""The course world: a generated English corpus of Winograd-style pronoun sentences (Levesque et al.
2012), in which the predicate after the pronoun, never the word order, decides its referent; plus
multi-sentence passages where "they/their" refer across sentences, single facts and ordinary sentences.

Splits: noun pairs are divided train / val / held-out, and two frames per schema are held out; the
textbook paragraph and the classic lecture examples never appear in training data.
The lexicon: each schema's two noun classes are a hand-picked core (the lecture's nouns) grown with WordNet 3.0
nouns of the same kind (model/data/wordnet_lexicon.py), so most held-out sentences hold words a 328-word
vocabulary never had. Texts are written as a person types them ("The cafe ... food.").
Indices (`Ref.pronoun_index`, `Ref.antecedent_index`) count words of `word_tokenizer.split_words(text)`,
without [CLS]; add 1 when the text is encoded with [CLS] in front.
"""
import random
import re
from dataclasses import dataclass, replace

from i18n import N_
from model.data import wordnet_lexicon
from model.data.word_tokenizer import WordTokenizer, split_words

PARAGRAPH = ("The restaurant refused to serve me a ham sandwich because it only cooks vegetarian food. "
             "In the end, they just gave me two slices of bread. "
             "Their ambiance was just as good as the food and service.")


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

# passages: sentence 1 is a venue_dish sentence; "they" in sentence 2 is the establishment; sentence 3
# points "they"/"their" at the establishment or at the plural food of sentence 2.
PLURAL_FOODS = (("two slices of bread", "slices"), ("some fries", "fries"), ("three cookies", "cookies"),
                ("a few olives", "olives"), ("some chips", "chips"), ("two rolls", "rolls"),
                ("some noodles", "noodles"), ("four dumplings", "dumplings"), ("some muffins", "muffins"),
                ("two pancakes", "pancakes"), ("a few crackers", "crackers"), ("some biscuits", "biscuits"))
AGENT_SENTENCES = ("in the end , they just gave me {f} .", "after that , they brought us {f} .",
                   "later , they offered me {f} .", "instead , they served us {f} .",
                   "in the end , they only sold me {f} .")
THIRD_A = (("they", "were very friendly"), ("they", "apologized twice"), ("they", "closed early"),
           ("their", "ambiance was just as good as the food and service"), ("their", "staff was kind"),
           ("their", "prices were fair"), ("their", "chef was very polite"), ("they", "were busy"))
THIRD_F = (("they", "were stale"), ("they", "were too dry"), ("they", "were still warm"),
           ("they", "were burnt"), ("their", "crust was too hard"), ("their", "edges were burnt"),
           ("they", "tasted of nothing"), ("their", "taste was bland"))

PEOPLE = ("woman", "man", "girl", "boy", "chef", "waiter", "teacher", "student", "farmer", "child")
VERBS = ("ate", "saw", "chased", "followed", "fed", "helped", "watched", "found", "bit", "liked")
ORDINARY_TEMPLATES = ("the {x} {v} the {y} .", "the {x} {v} the {y} near the {place} .",
                      "the {x} ate a {dish} at the {venue} .", "the {x} found a {thing} by the {place} .")
FACT_TEMPLATES = ("the {a} {p} .", "today the {a} {p} .", "the {b} {p} .", "yesterday the {b} {p} .")


@dataclass(frozen=True)
class Ref:
    """One pronoun and the head noun it refers to (word indices of split_words(text))."""
    pronoun_index: int
    antecedent_index: int
    pronoun: str
    antecedent: str


@dataclass(frozen=True)
class Sample:
    """A text with its pronoun references. pair_id links the two sides of a minimal pair."""
    text: str
    refs: tuple
    schema: str = ""
    frame: int = -1
    pair: tuple = ()
    pair_id: str = ""
    kind: str = "sentence"        # "sentence" | "passage" | "repeat" | "fact" | "ordinary"


def natural(text: str) -> str:
    """'the cafe was busy , so i left .' -> 'The cafe was busy, so I left.' (the same words, as typed)."""
    text = re.sub(r" ([.,!?])", r"\1", text)
    text = re.sub(r"\bi\b", "I", text)
    return re.sub(r"(^|[.!?] )([a-z])", lambda m: m.group(1) + m.group(2).upper(), text)


def _typed(samples: list[Sample]) -> list[Sample]:
    return [replace(s, text=natural(s.text)) for s in samples]


def _ref(words: list[str], pron_at: int, noun: str, search_before: int | None = None) -> Ref:
    """Ref from the pronoun position and the antecedent's first occurrence."""
    j = words.index(noun, 0, search_before if search_before is not None else len(words))
    return Ref(pron_at, j, words[pron_at], noun)


def schema_sentence(name: str, frame: int, a: str, b: str, side: str, pred: int, mod: str = "") -> Sample:
    """One schema sentence whose pronoun refers to noun a (side "a") or b (side "b")."""
    s = SCHEMAS[name]
    p = (s.a_preds if side == "a" else s.b_preds)[pred]
    b_phrase = f"{mod} {b}".strip()
    text = s.frames[frame].format(a=a, b=b_phrase, p=p)
    words = split_words(text)
    k = words.index("it")
    return Sample(text, (_ref(words, k, a if side == "a" else b, k),), name, frame, (a, b),
                  f"{name}|{frame}|{a}|{b}|{pred}|{mod}")


def pair_splits(name: str) -> dict[str, list[tuple[str, str]]]:
    """All (a, b) noun pairs of a schema split into train (70%), val (10%), heldout (20%)."""
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


def passage(a: str, b: str, frame: int, side: str, pred: int, rng: random.Random) -> Sample:
    """Three sentences like the textbook paragraph, with three pronoun references."""
    first = schema_sentence("venue_dish", frame, a, b, side, pred, rng.choice(SCHEMAS["venue_dish"].b_modifiers))
    food, food_word = rng.choice(PLURAL_FOODS)
    second = rng.choice(AGENT_SENTENCES).format(f=food)
    pron, pred3 = rng.choice(THIRD_A if rng.random() < 0.5 else THIRD_F)
    third = f"{pron} {pred3} ."
    text = f"{first.text} {second} {third}"
    words = split_words(text)
    n1, n2 = len(split_words(first.text)), len(split_words(second))
    they = n1 + split_words(second).index("they")
    food_at = n1 + split_words(second).index(food_word)
    refs = [first.refs[0], Ref(they, words.index(a), "they", a)]
    if (pron, pred3) in THIRD_A:
        refs.append(Ref(n1 + n2, words.index(a), pron, a))
    else:
        refs.append(Ref(n1 + n2, food_at, pron, food_word))
    return Sample(text, tuple(refs), "venue_dish", frame, (a, b), first.pair_id + f"|{second}|{third}",
                  "passage")


def repeat_noun(sample: Sample) -> Sample:
    """The same sentence with the pronoun replaced by its antecedent (plain text, no reference)."""
    words = split_words(sample.text)
    r = sample.refs[0]
    words[r.pronoun_index] = f"the {r.antecedent}"
    return Sample(" ".join(words), (), sample.schema, sample.frame, sample.pair, kind="repeat")


def fact(rng: random.Random) -> Sample:
    name = rng.choice(sorted(SCHEMAS))
    s = SCHEMAS[name]
    t = rng.choice(FACT_TEMPLATES)
    p = rng.choice(s.a_preds if "{a}" in t else s.b_preds)
    return Sample(t.format(a=rng.choice(s.a_nouns), b=rng.choice(s.b_nouns), p=p), (), kind="fact")


def ordinary(rng: random.Random) -> Sample:
    """'the woman ate the raccoon .' and friends: who did what to whom depends on word order."""
    beings = PEOPLE + SCHEMAS["animal_place"].a_nouns
    x, y = rng.sample(beings, 2)
    if rng.random() < 0.1:          # the textbook's order example, in both orders
        x, y = rng.sample(("woman", "raccoon"), 2)
        return Sample(f"the {x} ate the {y} .", (), kind="ordinary")
    place, venue = rng.choice(SCHEMAS["animal_place"].b_nouns), rng.choice(SCHEMAS["venue_dish"].a_nouns)
    dish, thing = rng.choice(SCHEMAS["venue_dish"].b_nouns), rng.choice(SCHEMAS["object_container"].a_nouns)
    template = rng.choice(ORDINARY_TEMPLATES)
    return Sample(template.format(x=x, y=y, v=rng.choice(VERBS), place=place, venue=venue, dish=dish, thing=thing),
                  (), kind="ordinary")


def _random_schema_sample(split: str, rng: random.Random) -> Sample:
    name = rng.choice(sorted(SCHEMAS))
    pairs, frames = split_spec(split, name)
    a, b = rng.choice(pairs)
    mods = SCHEMAS[name].b_modifiers
    return schema_sentence(name, rng.choice(frames), a, b, rng.choice("ab"), rng.randrange(10), rng.choice(mods))


def _random_passage(split: str, rng: random.Random) -> Sample:
    pairs, frames = split_spec(split, "venue_dish")
    a, b = rng.choice(pairs)
    return passage(a, b, rng.choice(frames), rng.choice("ab"), rng.randrange(10), rng)


def training_samples(n: int, seed: int = 0) -> list[Sample]:
    """The training mixture: 55% schema sentences (a quarter with the noun repeated), 15% facts and
    ordinary sentences, 30% passages. Only training pairs and frames; no classic example."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        u = rng.random()
        if u < 0.55:
            s = _random_schema_sample("train", rng)
            out.append(repeat_noun(s) if rng.random() < 0.25 else s)
        elif u < 0.70:
            out.append(fact(rng) if rng.random() < 0.6 else ordinary(rng))
        else:
            out.append(_random_passage("train", rng))
    return _typed([s for s in out if " ".join(split_words(s.text)) not in _CLASSIC_TEXTS])


def eval_samples(split: str, n_pairs: int = 150, seed: int = 0, passages: bool = False) -> list[Sample]:
    """Minimal pairs for "val", "heldout_pairs" or "heldout_frames": 2 * n_pairs samples, each pair the
    same words but the predicate, so its two sides point the pronoun at different nouns."""
    if split == "train":
        raise ValueError("eval_samples is for val / heldout_pairs / heldout_frames")
    rng = random.Random(f"{split}-{seed}-{passages}")
    out = []
    for _ in range(n_pairs):
        if passages:
            pairs, frames = split_spec(split, "venue_dish")
            (a, b), f, pred = rng.choice(pairs), rng.choice(frames), rng.randrange(10)
            state = rng.getstate()
            for side in "ab":
                rng.setstate(state)      # same second and third sentence on both sides
                out.append(passage(a, b, f, side, pred, rng))
            continue
        name = rng.choice(sorted(SCHEMAS))
        pairs, frames = split_spec(split, name)
        (a, b), f, pred = rng.choice(pairs), rng.choice(frames), rng.randrange(10)
        mod = rng.choice(SCHEMAS[name].b_modifiers)
        out += [schema_sentence(name, f, a, b, side, pred, mod) for side in "ab"]
    return _typed(out)


def lm_texts(n: int, seed: int = 0) -> list[str]:
    """n ordinary course-world texts (sentences and passages) for language-model training."""
    return [s.text for s in training_samples(n, seed)]


# ---- curated classic examples for the page (never in training); titles shown translated -------------
CLASSICS = (
    (N_("The textbook paragraph"), PARAGRAPH),
    (N_("The tired animal"), "The animal didn't cross the street because it was too tired."),
    (N_("The wide street"), "The animal didn't cross the street because it was too wide."),
    (N_("The big trophy"), "The trophy didn't fit into the suitcase because it was too big."),
    (N_("The small suitcase"), "The trophy didn't fit into the suitcase because it was too small."),
    (N_("The vegetarian restaurant"), "The restaurant refused to serve me a ham sandwich because it only cooks "
                                      "vegetarian food."),
    (N_("The salty sandwich"), "The restaurant refused to serve me a ham sandwich because it was too salty."),
)
# (title, text A, text B, pronoun, antecedent A, antecedent B): one word or phrase flips the referent
MINIMAL_PAIRS = (
    (N_("tired / wide"), CLASSICS[1][1], CLASSICS[2][1], "it", "animal", "street"),
    (N_("big / small"), CLASSICS[3][1], CLASSICS[4][1], "it", "trophy", "suitcase"),
    (N_("vegetarian food / too salty"), CLASSICS[5][1], CLASSICS[6][1], "it", "restaurant", "sandwich"),
)
_CLASSIC_TEXTS = {" ".join(split_words(t)) for _, t in CLASSICS} | {" ".join(split_words(PARAGRAPH))}
# where each pronoun of the classic texts points: (text, pronoun occurrence) -> antecedent
CLASSIC_ANSWERS = {
    PARAGRAPH: {"it": "restaurant", "they": "restaurant", "their": "restaurant"},
    CLASSICS[1][1]: {"it": "animal"}, CLASSICS[2][1]: {"it": "street"},
    CLASSICS[3][1]: {"it": "trophy"}, CLASSICS[4][1]: {"it": "suitcase"},
    CLASSICS[5][1]: {"it": "restaurant"}, CLASSICS[6][1]: {"it": "sandwich"},
}
PRONOUNS = ("it", "they", "their", "them", "its", "he", "she", "him", "her", "his")


def classic_refs(text: str) -> list[Ref]:
    """References of a classic text, from CLASSIC_ANSWERS (first occurrence of the antecedent)."""
    words = split_words(text)
    answers = CLASSIC_ANSWERS[text]
    return [Ref(i, words.index(answers[w]), w, answers[w]) for i, w in enumerate(words) if w in answers]


def tokenizer() -> WordTokenizer:
    """The course world's word-level tokenizer (the 328-word vocabulary of the first models): every word of
    the hand-picked lexicon, the templates and the classic examples; a WordNet-grown noun is [UNK] to it."""
    pieces = [PARAGRAPH, *[t for _, t in CLASSICS], *PEOPLE, *VERBS, *FACT_TEMPLATES, *AGENT_SENTENCES,
              *ORDINARY_TEMPLATES]
    pieces += [f for f, _ in PLURAL_FOODS] + [f"{p} {q}" for p, q in THIRD_A + THIRD_F]
    pieces = [re.sub(r"\{[a-z]+\}", " ", p) for p in pieces]
    for name, s in SCHEMAS.items():
        pieces += [*CORE_NOUNS[name][0], *CORE_NOUNS[name][1], *s.a_preds, *s.b_preds, *s.b_modifiers, *s.frames]
    return WordTokenizer.build(pieces)


def core_words() -> set[str]:
    """The words tokenizer() knows (no special token)."""
    return {w for w in tokenizer().vocab if not w.startswith("[")}
