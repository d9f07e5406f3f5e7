"""The course world's agreement sentences (model/data/course_agreement.py, course_people.py): every he/she
sentence's antecedent has the pronoun's gender and every it/they sentence's antecedent its number, checked against
word lists written here (not the generator's); a reflexive takes its own clause's subject; held-out names, nouns
and frames never reach training; minimal pairs differ in the pronoun only and flip the referent."""
import random

import pytest

from model.data import course_agreement as agreement
from model.data import course_people as people
from model.data import course_world as corpus
from model.data.word_tokenizer import split_words

FEMALE = set("""
anna maria sarah emma lucy julia laura sophie kate olga rosa lisa mary helen alice clara elena fatima aisha priya mei
yuki ingrid nora hannah eva carmen lena sofia chloe zoe olivia emily jessica rachel nina irina natasha leila amina
keiko jane susan linda karen monica paula diana vera greta marta lucia isabel zara mia grace ella charlotte victoria
rebecca martha jenny amy ruth esther heidi astrid maya anita sunita yasmin daniela abigail adriana alicia alina angela
anja barbara bianca camila caroline catherine cecilia claudia cristina dorothy elizabeth emilia fiona francesca gloria
hana helga ines isabella jasmine jennifer joanna julie katarina magdalena margaret marina melissa michelle miriam nadia
naomi nicole patricia petra sabine samantha sandra silvia simone stephanie svetlana tanya teresa ursula valentina
vanessa veronica wendy yolanda zainab ananya deepa kavita meera akiko sakura agnes louise sylvia
woman girl mother daughter sister aunt niece wife grandmother granddaughter queen princess actress waitress hostess
stewardess duchess bride nun lady girlfriend policewoman businesswoman schoolgirl landlady headmistress empress mum
stepmother widow saleswoman heiress witch baroness""".split())
MALE = set("""
peter tom john david james paul george daniel ben luis carlos hans kenji omar ravi ivan ahmed jack mark michael
robert william henry edward richard thomas andrew steven kevin brian simon martin stefan lars pedro diego juan miguel
antonio marco luca pierre karl klaus dmitri sergei hiroshi takeshi arjun rahul hassan ali youssef samuel joseph
oliver harry jacob noah ethan lucas felix oscar hugo leo victor anton mohammed kofi igor boris frank abdul adam adrian
alberto alejandro alexander ahmad amir andreas arthur benjamin bernard bruno charles christopher dennis dominik eduardo
emil enrique erik fabio fernando francisco gabriel gregory gustav hamid harold ibrahim jakob javier jonathan jorge
kamal kenneth lorenzo malik matthew mikhail nikolai patrick philip rafael raymond ricardo roberto rolf rupert sanjay
sebastian timothy vikram walter yusuf zoltan haruto kwame tunde vincent albert eric
man boy father son brother uncle nephew husband grandfather grandson king prince actor waiter host steward duke groom
monk gentleman boyfriend policeman businessman schoolboy landlord headmaster emperor dad stepfather widower salesman
heir wizard baron""".split())
ROLES = set("""teacher farmer nurse doctor driver student guide cook pilot baker coach officer clerk neighbour manager
gardener painter lawyer dentist tourist""".split())
PLURAL_IRREGULAR = {"children", "men", "women", "mice", "geese", "firemen"}
PRONOUN_GENDER = {"he": MALE, "him": MALE, "his": MALE, "himself": MALE,
                  "she": FEMALE, "her": FEMALE, "herself": FEMALE}
PLURAL_PRONOUNS = {"they", "them", "their", "themselves"}
SINGULAR_PRONOUNS = {"it", "its", "itself"}


def is_plural(noun: str) -> bool:
    """English plural by spelling: an -s ending (not -ss, not 'bus') or an irregular plural."""
    return noun in PLURAL_IRREGULAR or (noun.endswith("s") and not noun.endswith("ss") and noun != "bus")


def bare(word: str) -> str:
    """'peter's' -> 'peter'."""
    return word[:-2] if word.endswith("'s") else word


@pytest.fixture(scope="module")
def samples():
    rng = random.Random(7)
    train = [agreement.training_sample(cue, rng) for cue in agreement.CUES for _ in range(700)]
    held = [s for split in ("val", "heldout_pairs", "heldout_frames") for s in corpus.agreement_samples(split, 60)]
    return train + held


def test_gendered_pronouns_point_at_a_candidate_of_their_gender(samples):
    checked = 0
    for s in samples:
        (r,) = s.refs
        if r.pronoun not in PRONOUN_GENDER:
            continue
        gender = PRONOUN_GENDER[r.pronoun]
        assert bare(r.antecedent) in gender, s.text
        same = [c for c in s.pair if bare(c) in gender]
        if s.kind == "gender":
            assert same == [r.antecedent], s.text              # the only candidate of the pronoun's gender
        else:
            assert len(same) == len(s.pair), s.text            # structure: every candidate agrees
        checked += 1
    assert checked > 1000


def test_plural_pronouns_point_at_plural_nouns_and_it_at_a_singular_thing(samples):
    checked = 0
    for s in samples:
        (r,) = s.refs
        if r.pronoun in PLURAL_PRONOUNS:
            assert is_plural(r.antecedent), s.text
        elif r.pronoun in SINGULAR_PRONOUNS:
            assert not is_plural(r.antecedent) and r.antecedent not in FEMALE | MALE | ROLES, s.text
        else:
            continue
        if s.kind == "number":
            assert sum(is_plural(c) == is_plural(r.antecedent) for c in s.pair) == 1, s.text
        checked += 1
    assert checked > 700


def test_a_reflexive_takes_its_own_clause_subject_and_a_plain_pronoun_never_does(samples):
    for s in (s for s in samples if s.kind == "structure"):
        (r,) = s.refs
        words = split_words(s.text)
        before = [words.index(c) for c in s.pair if words.index(c) < r.pronoun_index]
        subject = min(before) if "promised" in words else max(before)   # "promise" keeps its own subject
        if r.pronoun.endswith(("self", "selves")):
            assert r.antecedent_index == subject, s.text
        else:
            assert r.antecedent_index != subject, s.text


def test_sentences_are_typed_with_names_capitalized(samples):
    names = {n.lower() for n in people.FEMALE_NAMES + people.MALE_NAMES}
    seen = 0
    for s in samples[-300:]:
        assert s.text[0].isupper() and s.text.endswith(".") and " ," not in s.text and " ." not in s.text
        typed, words = split_words(s.text, lower=False), split_words(s.text)
        for c in s.pair:
            if bare(c) in names:
                assert typed[words.index(c)][0].isupper(), s.text
                seen += 1
    assert seen > 50


def test_heldout_names_nouns_and_frames_never_reach_training():
    rng = random.Random(0)
    train = [agreement.training_sample(cue, rng) for cue in agreement.CUES for _ in range(1500)]
    words = {bare(w) for s in train for w in split_words(s.text)}
    held = people.lexicon("heldout")
    unseen = {n.lower() for n in held.female_names + held.male_names} | set(held.female_nouns + held.male_nouns)
    unseen |= set(held.plural_people + held.single_things + held.plural_things + held.single_animals)
    assert len(unseen) > 60 and not unseen & words
    assert all(s.frame not in agreement.HELDOUT_FRAMES[s.kind] for s in train)
    trained = people.lexicon("train")
    assert {n.lower() for n in trained.female_names} <= words          # the training names do occur


def test_word_lists_split_into_disjoint_parts_that_cover_them():
    for split_of in (people.split_words_of(people.FEMALE_NAMES, "female_names"),
                     people.split_words_of(people.THINGS, "things")):
        parts = [set(split_of[k]) for k in people.SPLITS]
        assert sum(map(len, parts)) == len(set().union(*parts))
        assert 0.15 < len(split_of["heldout"]) / len(set().union(*parts)) < 0.25
    with pytest.raises(ValueError, match="split must be one of"):
        people.lexicon("test")


def test_plurals_follow_english_spelling():
    assert [people.plural(w) for w in ("box", "puppy", "toy", "watch", "wolf", "mouse", "brush", "tomato")] == [
        "boxes", "puppies", "toys", "watches", "wolves", "mice", "brushes", "tomatoes"]
    held = people.lexicon("heldout")
    assert held.plural_things == tuple(people.plural(w) for w in held.single_things)    # one split for both numbers


@pytest.mark.parametrize("cue", agreement.CUES)
def test_minimal_pairs_differ_in_the_pronoun_only_and_flip_the_referent(cue):
    pairs = corpus.agreement_samples("heldout_pairs", 40, cues=(cue,))
    for a, b in zip(pairs[::2], pairs[1::2]):
        assert a.pair_id == b.pair_id and a.refs[0].antecedent != b.refs[0].antecedent
        wa, wb = split_words(a.text), split_words(b.text)
        k = a.refs[0].pronoun_index
        assert k == b.refs[0].pronoun_index and len(wa) == len(wb)
        differ = [i for i in range(len(wa)) if wa[i] != wb[i]]
        assert differ[0] == k and set(differ) <= {k, k + 1}        # the pronoun, and "was"/"were" after it


def test_eval_pairs_refuse_the_training_split():
    with pytest.raises(ValueError, match="eval_pairs is for val / heldout_pairs / heldout_frames"):
        agreement.eval_pairs("gender", "train", 3)
