"""Who and what the course world's agreement sentences are about: first names and nouns with a clear grammatical
gender (English marks gender on he/she, not on role nouns such as "teacher", so only words like "mother" or
"Anna" are gendered here), plural groups of people, and singular and plural things and animals (it vs they).

Every list is split train / val / held-out (70 / 10 / 20 %, a fixed shuffle per list), as the schemas split their
noun pairs: held-out sentences use names and nouns that no training sentence has.
"""
import functools
import random
from dataclasses import dataclass

FEMALE_NAMES = (
    "Anna", "Maria", "Sarah", "Emma", "Lucy", "Julia", "Laura", "Sophie", "Kate", "Olga", "Rosa", "Lisa", "Mary",
    "Helen", "Alice", "Clara", "Elena", "Fatima", "Aisha", "Priya", "Mei", "Yuki", "Ingrid", "Nora", "Hannah", "Eva",
    "Carmen", "Lena", "Sofia", "Chloe", "Zoe", "Olivia", "Emily", "Jessica", "Rachel", "Nina", "Irina", "Natasha",
    "Leila", "Amina", "Keiko", "Jane", "Susan", "Linda", "Karen", "Monica", "Paula", "Diana", "Vera", "Greta",
    "Marta", "Lucia", "Isabel", "Zara", "Mia", "Grace", "Ella", "Charlotte", "Victoria", "Rebecca", "Martha",
    "Jenny", "Amy", "Ruth", "Esther", "Heidi", "Astrid", "Maya", "Anita", "Sunita", "Yasmin", "Daniela", "Abigail",
    "Adriana", "Alicia", "Alina", "Angela", "Anja", "Barbara", "Bianca", "Camila", "Caroline", "Catherine", "Cecilia",
    "Claudia", "Cristina", "Dorothy", "Elizabeth", "Emilia", "Fiona", "Francesca", "Gloria", "Hana", "Helga", "Ines",
    "Isabella", "Jasmine", "Jennifer", "Joanna", "Julie", "Katarina", "Magdalena", "Margaret", "Marina", "Melissa",
    "Michelle", "Miriam", "Nadia", "Naomi", "Nicole", "Patricia", "Petra", "Sabine", "Samantha", "Sandra", "Silvia",
    "Simone", "Stephanie", "Svetlana", "Tanya", "Teresa", "Ursula", "Valentina", "Vanessa", "Veronica", "Wendy",
    "Yolanda", "Zainab", "Ananya", "Deepa", "Kavita", "Meera", "Akiko", "Sakura", "Agnes", "Louise", "Sylvia")
MALE_NAMES = (
    "Peter", "Tom", "John", "David", "James", "Paul", "George", "Daniel", "Ben", "Luis", "Carlos", "Hans", "Kenji",
    "Omar", "Ravi", "Ivan", "Ahmed", "Jack", "Mark", "Michael", "Robert", "William", "Henry", "Edward", "Richard",
    "Thomas", "Andrew", "Steven", "Kevin", "Brian", "Simon", "Martin", "Stefan", "Lars", "Pedro", "Diego", "Juan",
    "Miguel", "Antonio", "Marco", "Luca", "Pierre", "Karl", "Klaus", "Dmitri", "Sergei", "Hiroshi", "Takeshi",
    "Arjun", "Rahul", "Hassan", "Ali", "Youssef", "Samuel", "Joseph", "Oliver", "Harry", "Jacob", "Noah", "Ethan",
    "Lucas", "Felix", "Oscar", "Hugo", "Leo", "Victor", "Anton", "Mohammed", "Kofi", "Igor", "Boris", "Frank",
    "Abdul", "Adam", "Adrian", "Alberto", "Alejandro", "Alexander", "Ahmad", "Amir", "Andreas", "Arthur", "Benjamin",
    "Bernard", "Bruno", "Charles", "Christopher", "Dennis", "Dominik", "Eduardo", "Emil", "Enrique", "Erik", "Fabio",
    "Fernando", "Francisco", "Gabriel", "Gregory", "Gustav", "Hamid", "Harold", "Ibrahim", "Jakob", "Javier",
    "Jonathan", "Jorge", "Kamal", "Kenneth", "Lorenzo", "Malik", "Matthew", "Mikhail", "Nikolai", "Patrick", "Philip",
    "Rafael", "Raymond", "Ricardo", "Roberto", "Rolf", "Rupert", "Sanjay", "Sebastian", "Timothy", "Vikram", "Walter",
    "Yusuf", "Zoltan", "Haruto", "Kwame", "Tunde", "Vincent", "Albert", "Eric")
# (male, female) nouns whose referent's gender English marks
GENDERED_NOUNS = (
    ("man", "woman"), ("boy", "girl"), ("father", "mother"), ("son", "daughter"), ("brother", "sister"),
    ("uncle", "aunt"), ("nephew", "niece"), ("husband", "wife"), ("grandfather", "grandmother"),
    ("grandson", "granddaughter"), ("king", "queen"), ("prince", "princess"), ("actor", "actress"),
    ("waiter", "waitress"), ("host", "hostess"), ("steward", "stewardess"), ("duke", "duchess"), ("groom", "bride"),
    ("monk", "nun"), ("gentleman", "lady"), ("boyfriend", "girlfriend"), ("policeman", "policewoman"),
    ("businessman", "businesswoman"), ("schoolboy", "schoolgirl"), ("landlord", "landlady"),
    ("headmaster", "headmistress"), ("emperor", "empress"), ("dad", "mum"), ("stepfather", "stepmother"),
    ("widower", "widow"), ("salesman", "saleswoman"), ("heir", "heiress"), ("wizard", "witch"), ("baron", "baroness"))
PLURAL_PEOPLE = (
    "students", "teachers", "farmers", "neighbours", "parents", "nurses", "doctors", "workers", "tourists",
    "players", "soldiers", "guests", "children", "kids", "friends", "pupils", "musicians", "visitors", "customers",
    "passengers", "drivers", "dancers", "singers", "cooks", "sailors", "villagers", "scientists", "builders",
    "hikers", "campers", "fans", "cousins", "boys", "girls", "men", "women", "grandparents", "twins", "actors",
    "painters", "engineers", "firemen", "climbers", "waiters", "lawyers", "judges")
SINGLE_PEOPLE = (
    "teacher", "farmer", "nurse", "doctor", "driver", "student", "guide", "cook", "pilot", "baker", "coach",
    "officer", "clerk", "neighbour", "manager", "gardener", "painter", "lawyer", "dentist", "tourist")
THINGS = (
    "car", "piano", "box", "book", "window", "table", "door", "ball", "phone", "bag", "bottle", "lamp", "clock", "bed",
    "chair", "kettle", "radio", "computer", "letter", "key", "map", "train", "boat", "bridge", "house", "tree", "stone",
    "cake", "blanket", "coat", "ladder", "fridge", "oven", "tent", "truck", "bench", "fence", "statue", "wagon",
    "sofa", "mirror", "carpet", "parcel", "basket", "umbrella", "bicycle", "tractor", "plate", "knife", "fork",
    "spoon", "bowl", "jar", "candle", "pen", "pencil", "coin", "ticket", "egg", "tomato", "potato", "apple", "flower",
    "plant", "sock", "glove", "shoe", "boot", "shirt", "jacket", "scarf", "toy", "rock", "bucket", "cookie",
    "biscuit", "roll", "bike", "drum", "guitar", "violin", "trumpet", "camera", "laptop", "printer", "desk", "shelf",
    "cupboard", "drawer", "pillow", "towel", "brush", "hammer", "rope", "wheel", "engine", "helicopter", "plane",
    "kite", "balloon", "envelope", "notebook", "newspaper", "poster", "painting", "vase", "teapot", "saucepan",
    "stove", "mug", "ring", "necklace", "watch", "suitcase", "backpack", "lock", "chain", "barrel", "crate", "cart",
    "van", "ship", "canoe", "stool", "cushion", "curtain", "rug", "quilt", "jug", "toaster", "heater", "lantern",
    "torch", "flag", "sign", "gate", "pole", "log", "plank", "brick", "tile", "shovel", "rake", "hose", "drill")
ANIMALS = (
    "dog", "cat", "cow", "horse", "bird", "goat", "pig", "duck", "rabbit", "fox", "mouse", "owl", "parrot",
    "tortoise", "snake", "hamster", "donkey", "puppy", "kitten", "pony", "lamb", "squirrel", "frog", "camel", "bee",
    "fly", "ant", "wolf", "goose", "chicken", "lion", "tiger", "bear", "monkey", "elephant", "giraffe", "zebra", "rat",
    "hedgehog", "badger", "beaver", "otter", "seal", "whale", "dolphin", "shark", "crow", "eagle", "hawk", "pigeon",
    "swan", "turkey", "bull", "calf", "kangaroo", "penguin", "lizard", "spider", "beetle", "butterfly", "snail",
    "crab")
IRREGULAR_PLURALS = {"mouse": "mice", "goose": "geese", "knife": "knives", "shelf": "shelves", "scarf": "scarves",
                     "wolf": "wolves", "calf": "calves", "tomato": "tomatoes", "potato": "potatoes"}


def plural(noun: str) -> str:
    """English plural of a count noun: 'box' -> 'boxes', 'puppy' -> 'puppies', 'wolf' -> 'wolves'."""
    if noun in IRREGULAR_PLURALS:
        return IRREGULAR_PLURALS[noun]
    if noun.endswith(("s", "x", "z", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


DETERMINERS = ("the", "the", "my", "our", "your")      # "my" fits a relative or a group, "the" anyone
RELATIVES = frozenset("father son brother uncle nephew husband grandfather grandson boyfriend dad stepfather mother "
                      "daughter sister aunt niece wife grandmother granddaughter girlfriend mum stepmother".split())
SPLITS = ("train", "val", "heldout")


def split_words_of(words: tuple, key: str) -> dict[str, tuple]:
    """A word list split train (70%), val (10%), heldout (20%) by a fixed shuffle named by key."""
    shuffled = list(words)
    random.Random(f"people-{key}").shuffle(shuffled)
    n_held, n_val = round(0.2 * len(shuffled)), max(1, round(0.1 * len(shuffled)))
    return {"heldout": tuple(shuffled[:n_held]), "val": tuple(shuffled[n_held:n_held + n_val]),
            "train": tuple(shuffled[n_held + n_val:])}


@dataclass(frozen=True)
class Lexicon:
    """The words one split draws from. Names are capitalized; every other word is lower-case."""
    female_names: tuple
    male_names: tuple
    female_nouns: tuple
    male_nouns: tuple
    plural_people: tuple
    single_people: tuple
    single_things: tuple
    plural_things: tuple
    single_animals: tuple
    plural_animals: tuple


@functools.cache
def lexicon(split: str) -> Lexicon:
    """The names and nouns of split "train", "val" or "heldout" (gendered nouns split as male/female pairs, things
    and animals by their singular, so a held-out noun is unseen in both numbers)."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    pairs = split_words_of(GENDERED_NOUNS, "gendered")[split]
    things, animals = split_words_of(THINGS, "things")[split], split_words_of(ANIMALS, "animals")[split]
    lists = {"female_names": FEMALE_NAMES, "male_names": MALE_NAMES, "plural_people": PLURAL_PEOPLE,
             "single_people": SINGLE_PEOPLE}
    return Lexicon(female_nouns=tuple(f for _, f in pairs), male_nouns=tuple(m for m, _ in pairs),
                   single_things=things, plural_things=tuple(map(plural, things)), single_animals=animals,
                   plural_animals=tuple(map(plural, animals)),
                   **{k: split_words_of(v, k)[split] for k, v in lists.items()})


# the forms of each pronoun, by the kind of its antecedent: m, f (a man or a woman), sg (a thing or an animal),
# pl (any plural); and the past of "be" that agrees with it
PRONOUN_FORMS = {
    "m": {"subj": "he", "obj": "him", "pos": "his", "refl": "himself", "be": "was"},
    "f": {"subj": "she", "obj": "her", "pos": "her", "refl": "herself", "be": "was"},
    "sg": {"subj": "it", "obj": "it", "pos": "its", "refl": "itself", "be": "was"},
    "pl": {"subj": "they", "obj": "them", "pos": "their", "refl": "themselves", "be": "were"},
}


@dataclass(frozen=True)
class Mention:
    """A noun phrase as written in a sentence and the word a reference points at (its head word, lower-case)."""
    text: str
    head: str
    kind: str                # "m" | "f" | "sg" | "pl"


def person(kind: str, lex: Lexicon, rng: random.Random, name_share: float = 0.6) -> Mention:
    """A man or a woman (kind "m" / "f"): a first name, or a determiner and a gendered noun."""
    if rng.random() < name_share:
        name = rng.choice(lex.male_names if kind == "m" else lex.female_names)
        return Mention(name, name.lower(), kind)
    noun = rng.choice(lex.male_nouns if kind == "m" else lex.female_nouns)
    return Mention(f"{rng.choice(DETERMINERS) if noun in RELATIVES else 'the'} {noun}", noun, kind)


def thing(kind: str, lex: Lexicon, rng: random.Random, animate: bool | None = None) -> Mention:
    """A singular ("sg") or plural ("pl") thing or animal (animals when animate is True, things when False)."""
    animate = rng.random() < 0.35 if animate is None else animate
    if kind == "sg":
        noun = rng.choice(lex.single_animals if animate else lex.single_things)
    else:
        noun = rng.choice(lex.plural_animals if animate else lex.plural_things)
    return Mention(f"the {noun}", noun, kind)


def group(lex: Lexicon, rng: random.Random) -> Mention:
    """Plural people: 'the students'."""
    noun = rng.choice(lex.plural_people)
    return Mention(f"{rng.choice(DETERMINERS)} {noun}", noun, "pl")


def single_person(lex: Lexicon, rng: random.Random) -> Mention:
    """One person by a role noun English does not mark for gender ('the teacher'): neither it nor they."""
    noun = rng.choice(lex.single_people)
    return Mention(f"the {noun}", noun, "person")
