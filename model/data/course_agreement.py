"""Course-world sentences whose pronoun is settled by agreement or syntax, not by world knowledge: gender ("Anna
called Peter because he was late" -> Peter), number ("The farmers sold the cow because it was old" -> cow) and
structure (a reflexive takes the subject of its own clause, a plain object pronoun cannot: "Tom said that Peter
had hurt himself" -> Peter, "... had hurt him" -> Tom; after "promise" the main subject controls).

Every frame writes its candidates in either order; flipping the pronoun's gender, number or form (reflexive vs
plain) flips the referent, which gives the minimal pairs of the evaluation splits. Splits as the schemas': "val"
and "heldout_pairs" draw names and nouns training never saw (model/data/course_people.py) in the training frames,
"heldout_frames" draws training names and nouns in two held-out frames per cue.
"""
import random

from model.data import course_people as people
from model.data.course_people import PRONOUN_FORMS, Lexicon, Mention
from model.data.course_samples import CUES, Ref, Sample
from model.data.word_tokenizer import split_words

PEOPLE_PREDS = (
    "{be} late", "{be} tired", "{be} worried", "needed help", "had good news", "wanted to talk", "felt lonely",
    "had missed the last tram", "had a question", "had lost a wallet", "{be} leaving town", "had won a prize",
    "{be} ill", "{be} very busy", "had forgotten the address", "{be} in trouble", "needed a lift to the airport",
    "had a new job", "{be} moving to a new flat", "had just come back from holiday", "{be} hungry", "{be} bored",
    "had bought a new hat", "{be} going to be late")
# predicates that fit people, animals and things alike, so only the pronoun's number decides
NUMBER_PREDS = (
    "{be} very old", "{be} in the way", "{be} hard to see", "{be} still outside", "{be} covered in dust",
    "{be} soaking wet", "{be} too far away", "had been there all day", "{be} very quiet", "looked strange",
    "{be} in the shade", "{be} covered in snow", "{be} already there", "{be} getting cold", "{be} in the picture",
    "{be} still there in the morning")
# gender frames: slots {a}, {b} (a man and a woman, either order), {pr} the pronoun, {q} a predicate, {t} a thing
GENDER_FRAMES = (
    ("{a} called {b} because {pr} {q} .", "subj"),
    ("{a} visited {b} when {pr} {q} .", "subj"),
    ("{a} waited for {b} because {pr} {q} .", "subj"),
    ("{a} wrote to {b} after {pr} {q} .", "subj"),
    ("{a} and {b} met at the station , and {pr} {q} .", "subj"),
    ("{a} smiled at {b} because {pr} {q} .", "subj"),
    ("{a} talked to {b} , but {pr} {q} .", "subj"),
    ("{a} told {b} that {pr} {q} .", "subj"),
    ("when {pr} {q} , {a} phoned {b} .", "subj"),
    ("{a} lent {b} {pr} {t} for the weekend .", "pos"),
    ("{a} showed {b} {pr} new {t} .", "pos"),
    ("{a} sent {b} a card for {pr} birthday .", "pos"),
    ("{a} met {b} at the station , and everybody ran to {pr} .", "obj"),
    ("{a} and {b} came home late , and a stranger followed {pr} upstairs .", "obj"),
    ("{a} called {b} because a message for {pr} had arrived .", "obj"),
    ("{a} sat next to {b} , and somebody gave {pr} a cup of tea .", "obj"),
)
# number frames: slots {x}, {y} with the kinds of mention each takes, {bx} "was"/"were" agreeing with x
NUMBER_FRAMES = (
    ("{x} {bx} next to {y} , and {pr} {q} .", "subj", "any", "any"),
    ("i saw {x} near {y} , and {pr} {q} .", "subj", "any", "any"),
    ("we left {x} beside {y} , but {pr} {q} .", "subj", "any", "thing"),
    ("{x} {bx} behind {y} , so {pr} {q} .", "subj", "any", "any"),
    ("{x} waited by {y} because {pr} {q} .", "subj", "agent", "any"),
    ("{x} looked at {y} because {pr} {q} .", "subj", "agent", "any"),
    ("{x} sold {y} because {pr} {q} .", "subj", "people", "thing"),
    ("{x} fed {y} because {pr} {q} .", "subj", "people", "animal"),
    ("{x} carried {y} into the hall because {pr} {q} .", "subj", "people", "thing"),
    ("{x} stood next to {y} until somebody moved {pr} .", "obj", "any", "any"),
    ("we found {x} near {y} and took a photo of {pr} .", "obj", "any", "any"),
    ("nobody noticed {x} behind {y} , so i pointed at {pr} .", "obj", "any", "any"),
    ("{x} {bx} by {y} , and {pr} shadow was very long .", "pos", "any", "any"),
    ("we painted {x} next to {y} , but {pr} colour was wrong .", "pos", "any", "thing"),
)
# structure frames: the reflexive's and the plain pronoun's referent ("-" none: the frame takes a reflexive only),
# and whether animals fit the frame
STRUCTURE_FRAMES = (
    ("{a} said that {b} had {pp} {pr}{tail} .", "b", "a", False),
    ("{a} heard that {b} had {pp} {pr}{tail} .", "b", "a", False),
    ("{a} thought that {b} had {pp} {pr}{tail} .", "b", "a", False),
    ("{a} watched {b} {base} {pr}{tail} .", "b", "a", True),
    ("{a} asked {b} to {base} {pr}{tail} .", "b", "a", False),
    ("{a} reminded {b} to {base} {pr}{tail} .", "b", "a", False),
    ("{a} expected {b} to {base} {pr}{tail} .", "b", "a", False),
    ("{a} let {b} {base} {pr}{tail} .", "b", "a", True),
    ("{a} promised {b} to {base} {pr}{tail} .", "a", "b", False),
    ("{owner} {a} {past} {pr}{tail} .", "a", "owner", False),    # "Peter's father hurt himself / him"
    ("{a} told {b} that {c} had {pp} {pr}{tail} .", "c", "-", False),
)
VERBS = (("hurt", "hurt", "hurt"), ("cut", "cut", "cut"), ("blame", "blamed", "blamed"), ("see", "saw", "seen"),
         ("praise", "praised", "praised"), ("wash", "washed", "washed"), ("defend", "defended", "defended"),
         ("photograph", "photographed", "photographed"), ("describe", "described", "described"),
         ("push", "pushed", "pushed"), ("scratch", "scratched", "scratched"), ("paint", "painted", "painted"),
         ("warn", "warned", "warned"), ("help", "helped", "helped"), ("trust", "trusted", "trusted"),
         ("introduce", "introduced", "introduced"), ("draw", "drew", "drawn"), ("weigh", "weighed", "weighed"))
TAILS = ("", "", " again", " by mistake", " yesterday", " at the party", " in front of everyone", " on purpose")
HELDOUT_FRAMES = {"gender": (4, 13), "number": (3, 11), "structure": (2, 6)}
FRAMES = {"gender": GENDER_FRAMES, "number": NUMBER_FRAMES, "structure": STRUCTURE_FRAMES}
SPLITS = ("train", "val", "heldout_pairs", "heldout_frames")
_SLOT = "pronounslot"


def split_spec(split: str, cue: str) -> tuple[Lexicon, list[int]]:
    """(lexicon, frame indices) a split draws from: val/heldout_pairs use unseen words in the training frames,
    heldout_frames the training words in the held-out frames."""
    if split not in SPLITS or cue not in CUES:
        raise ValueError(f"split must be one of {SPLITS} and cue one of {CUES}, got {split!r} and {cue!r}")
    held = HELDOUT_FRAMES[cue]
    frames = [i for i in range(len(FRAMES[cue])) if i not in held]
    words = {"train": "train", "val": "val", "heldout_pairs": "heldout", "heldout_frames": "train"}[split]
    return people.lexicon(words), list(held) if split == "heldout_frames" else frames


def build(cue: str, frame: int, template: str, slots: dict[str, Mention], pron: str, antecedent: str,
          fills: dict, key: str) -> Sample | None:
    """The sentence with its one reference, or None when a candidate's word occurs twice (the reference would be
    ambiguous). slots: the candidates by slot name; antecedent: the slot the pronoun refers to; key: what both
    sides of a minimal pair share besides the frame and the candidates (it joins the pair_id)."""
    fills = {k: v for k, v in fills.items() if "{" + k + "}" in template}
    text = template.format(pr=_SLOT, **{k: m.text for k, m in slots.items()}, **fills)
    words = split_words(text)
    at = words.index(_SLOT)
    text, words[at] = text.replace(_SLOT, pron), pron
    heads = [m.head for m in slots.values()]
    if any(words.count(h) != 1 for h in heads):
        return None
    order = tuple(sorted(heads, key=words.index))
    head = slots[antecedent].head
    pair_id = f"{cue}|{frame}|{'|'.join(order)}|{key}"
    return Sample(text, (Ref(at, words.index(head), pron, head),), "", frame, order, pair_id, cue)


def gender_sentences(frame: int, lex: Lexicon, rng: random.Random, first: str) -> list[Sample | None]:
    """Both sides of one gender minimal pair: the pronoun he/him/his, then she/her, a man and a woman in the
    frame ({a} is a man when first == "m")."""
    template, form = GENDER_FRAMES[frame]
    kinds = {"a": first, "b": "f" if first == "m" else "m"}
    slots = {k: people.person(kind, lex, rng) for k, kind in kinds.items()}
    fills = {"q": rng.choice(PEOPLE_PREDS).format(be="was"), "t": rng.choice(lex.single_things)}
    key = "|".join(fills.values())
    return [build("gender", frame, template, slots, PRONOUN_FORMS[g][form], next(k for k in kinds if kinds[k] == g),
                  fills, key) for g in ("m", "f")]


def _number_mention(slot_kind: str, number: str, lex: Lexicon, rng: random.Random,
                    lone_people: float) -> Mention | None:
    """A mention of number "sg" / "pl" that a slot of kind slot_kind takes, or None when it takes none. A singular
    slot that takes people holds one person ("the teacher", never "it") with probability lone_people."""
    options = {"people": ("people",), "thing": ("thing",), "animal": ("animal",), "agent": ("people", "animal"),
               "any": ("people", "thing", "animal")}[slot_kind]
    if number == "sg" and "people" in options and rng.random() < lone_people:
        return people.single_person(lex, rng)
    options = [o for o in options if not (o == "people" and number == "sg")]
    if not options:
        return None
    pick = rng.choice(options)
    return people.group(lex, rng) if pick == "people" else people.thing(number, lex, rng, pick == "animal")


def number_sentences(frame: int, lex: Lexicon, rng: random.Random, x_number: str,
                     lone_people: float = 0.0) -> list[Sample | None]:
    """Both sides of one number minimal pair: the pronoun it/its, then they/them/their, one candidate singular
    (x when x_number == "sg") and the other plural. When the singular candidate is one person (see
    _number_mention), only the plural side exists: the first is None."""
    template, form, x_kind, y_kind = NUMBER_FRAMES[frame]
    y_number = "pl" if x_number == "sg" else "sg"
    slots = {"x": _number_mention(x_kind, x_number, lex, rng, lone_people),
             "y": _number_mention(y_kind, y_number, lex, rng, lone_people)}
    if None in slots.values():
        return [None, None]
    q = rng.choice(NUMBER_PREDS)
    out = []
    for number in ("sg", "pl"):
        fills = {"q": q.format(be=PRONOUN_FORMS[number]["be"]), "bx": PRONOUN_FORMS[x_number]["be"]}
        ante = "x" if x_number == number else "y"
        person = slots[ante].kind == "person"
        out.append(None if person else build("number", frame, template, slots, PRONOUN_FORMS[number][form], ante,
                                             fills, q))
    return out


def _structure_slots(frame: int, kind: str, lex: Lexicon, rng: random.Random) -> dict[str, Mention] | None:
    """The candidates of a structure frame, all of one kind: "m", "f" (people), "pl" (groups) or "sg"/"apl"
    (a singular or plural animal); None when the frame does not take that kind."""
    template, _, _, animals = STRUCTURE_FRAMES[frame]
    if kind in ("sg", "apl") and not animals:
        return None

    def one() -> Mention:
        if kind in ("m", "f"):
            return people.person(kind, lex, rng)
        return people.group(lex, rng) if kind == "pl" else people.thing(kind[-2:], lex, rng, animate=True)
    if "{c}" in template:
        return {"a": one(), "b": one(), "c": one()}
    if "{b}" in template:
        return {"a": one(), "b": one()}
    relatives = [n for n in (lex.male_nouns if kind == "m" else lex.female_nouns) if n in people.RELATIVES]
    if kind not in ("m", "f") or not relatives:
        return None
    owner, noun = people.person(kind, lex, rng, name_share=1.0), rng.choice(relatives)
    return {"owner": Mention(f"{owner.text}'s", f"{owner.head}'s", kind), "a": Mention(noun, noun, kind)}


def structure_sentences(frame: int, lex: Lexicon, rng: random.Random, kind: str) -> list[Sample | None]:
    """Both sides of one structure minimal pair: the reflexive (himself, herself, itself, themselves), then the
    plain object pronoun (him, her, it, them); the second is None when the frame takes a reflexive only."""
    template, refl_to, plain_to, _ = STRUCTURE_FRAMES[frame]
    slots = _structure_slots(frame, kind, lex, rng)
    if slots is None:
        return [None, None]
    base, past, pp = rng.choice(VERBS)
    fills = {"base": base, "past": past, "pp": pp, "tail": rng.choice(TAILS)}
    key = f"{base}|{fills['tail']}"
    forms = PRONOUN_FORMS["sg" if kind == "sg" else "pl" if kind in ("pl", "apl") else kind]
    out = [build("structure", frame, template, slots, forms["refl"], refl_to, fills, key)]
    plain = None if plain_to == "-" else build("structure", frame, template, slots, forms["obj"], plain_to, fills, key)
    return out + [plain]


# the kinds each cue's first slot is drawn with: a man or a woman first; singular or plural x; the candidates' kind
FIRST_KINDS = {"gender": ("m", "f"), "number": ("sg", "pl"), "structure": ("m", "f", "m", "f", "pl", "sg", "apl")}


def draw(cue: str, split: str, rng: random.Random, complete: bool = True) -> list[Sample]:
    """The sides of one minimal pair of a cue drawn from a split (retrying draws a frame cannot take); with
    complete=False a draw with one side only (a plain-pronoun-less frame, a lone person) is kept too."""
    lex, frames = split_spec(split, cue)
    for _ in range(100):
        frame, first = rng.choice(frames), rng.choice(FIRST_KINDS[cue])
        if cue == "gender":
            sides = gender_sentences(frame, lex, rng, first)
        elif cue == "number":
            sides = number_sentences(frame, lex, rng, first, lone_people=0.0 if complete else 0.3)
        else:
            sides = structure_sentences(frame, lex, rng, first)
        kept = [s for s in sides if s is not None]
        if len(kept) == 2 or (kept and not complete):
            return kept
    raise RuntimeError(f"no {cue} pair could be drawn from {split}")


def training_sample(cue: str, rng: random.Random) -> Sample:
    """One training sentence of a cue: one side of a draw from the training split."""
    return rng.choice(draw(cue, "train", rng, complete=False))


def eval_pairs(cue: str, split: str, n_pairs: int, seed: int = 0) -> list[Sample]:
    """Both sides of n_pairs minimal pairs of one cue (not "train"): 2 * n_pairs samples, sides adjacent."""
    if split == "train":
        raise ValueError("eval_pairs is for val / heldout_pairs / heldout_frames")
    rng = random.Random(f"agreement-{cue}-{split}-{seed}")
    return [s for _ in range(n_pairs) for s in draw(cue, split, rng)]
