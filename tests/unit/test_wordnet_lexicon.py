"""The WordNet reader behind the course world's lexicon: on a hand-written three-level database in WordNet's
wndb(5WN) format (answers known by construction) and on facts of Debian's WordNet 3.0."""
import pytest

from model.data import wordnet_lexicon as wl

LICENSE = "  1 This is a license line the reader must skip  \n"
# food (00000010) -> soup (00000020) -> {gazpacho (00000030), Borscht_Soup (00000040)}; soup is also "potage"
DATA_NOUN = LICENSE + "".join([
    "00000010 13 n 01 food 0 001 ~ 00000020 n 0000 | something to eat  \n",
    "00000020 13 n 02 soup 0 potage 0 003 @ 00000010 n 0000 ~ 00000030 n 0000 ~ 00000040 n 0000 | liquid food  \n",
    "00000030 13 n 01 gazpacho 0 001 @ 00000020 n 0000 | cold soup  \n",
    "00000040 13 n 02 Borscht_Soup 0 borscht 0 001 @ 00000020 n 0000 | beet soup  \n",
])
INDEX_NOUN = LICENSE + "".join([
    "borscht n 1 1 @ 1 0 00000040  \n",
    "food n 1 1 ~ 1 5 00000010  \n",
    "gazpacho n 1 1 @ 1 1 00000030  \n",
    "potage n 1 2 @ ~ 1 0 00000020  \n",
    "soup n 1 2 @ ~ 1 3 00000020  \n",
])
# salty (00000100) is similar to briny (00000110) and saline (00000120)
DATA_ADJ = LICENSE + "".join([
    "00000100 00 a 01 salty 0 002 & 00000110 a 0000 & 00000120 a 0000 | containing salt  \n",
    "00000110 00 s 01 briny 0 001 & 00000100 a 0000 | like brine  \n",
    "00000120 00 s 01 saline 0 001 & 00000100 a 0000 | of salt  \n",
])
INDEX_ADJ = LICENSE + "".join([
    "briny a 1 1 & 1 0 00000110  \n",
    "saline a 1 1 & 1 0 00000120  \n",
    "salty a 1 1 & 1 2 00000100  \n",
])


@pytest.fixture()
def tiny_wordnet(tmp_path):
    for name, text in [("data.noun", DATA_NOUN), ("index.noun", INDEX_NOUN), ("data.adj", DATA_ADJ),
                       ("index.adj", INDEX_ADJ)]:
        (tmp_path / name).write_text(text)
    return str(tmp_path)


def test_hyponyms_walk_down_by_depth(tiny_wordnet):
    assert wl.hyponyms("food", depth=1, tagged_only=False, root=tiny_wordnet) == ["soup", "potage"]
    assert wl.hyponyms("food", depth=2, tagged_only=False, root=tiny_wordnet) == ["soup", "potage", "gazpacho",
                                                                                 "borscht"]


def test_tagged_only_keeps_sense_tagged_lemmas(tiny_wordnet):
    # potage and borscht were never sense-tagged (count 0 in index.noun)
    assert wl.hyponyms("food", depth=2, tagged_only=True, root=tiny_wordnet) == ["soup", "gazpacho"]


def test_multiword_and_capitalised_lemmas_are_left_out(tiny_wordnet):
    assert "Borscht_Soup" not in wl.hyponyms("soup", depth=1, tagged_only=False, root=tiny_wordnet)
    assert wl.hyponyms("soup", depth=1, tagged_only=False, max_len=7, root=tiny_wordnet) == ["borscht"]


def test_similar_adjectives(tiny_wordnet):
    assert wl.similar_adjectives("salty", root=tiny_wordnet) == ["briny", "saline"]


def test_missing_wordnet_names_the_package(tmp_path):
    with pytest.raises(FileNotFoundError, match="apt-get install -y wordnet-base"):
        wl.hyponyms("food", root=str(tmp_path))


def test_debian_wordnet_facts():
    # WordNet 3.0: restaurant.n.01 has cafeteria and diner among its hyponyms; soup.n.01 has gazpacho
    assert {"cafeteria", "diner"} <= set(wl.hyponyms("restaurant", depth=1, tagged_only=False))
    assert "gazpacho" in wl.hyponyms("soup", depth=1, tagged_only=False)
    assert "tiny" in wl.similar_adjectives("small")
