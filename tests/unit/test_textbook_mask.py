"""The textbook's masked example (12.6.1), "The [MASK] pulled into the station.", on the shipped encoder: a filler
that names a means of transport is among its five best. What counts as one comes from outside the model: WordNet
3.0's nouns under conveyance (sense 3: "something that serves as a means of transportation")."""
from model import checkpoints
from model.data import bpe
from model.data.wordnet_lexicon import hyponyms
from model.tasks.fill_mask import fill_mask


def test_the_encoder_fills_the_textbooks_station_sentence_with_a_vehicle():
    vehicles = set(hyponyms("conveyance", sense=3, depth=6, tagged_only=False))
    assert {"train", "bus", "ship", "car"} <= vehicles and "ball" not in vehicles and "door" not in vehicles
    model, _meta = checkpoints.load("general_encoder")
    filled = fill_mask(model, bpe.load(), "The [MASK] pulled into the station.", top_k=5)
    best = [p.strip().lower() for p in filled.top_pieces[0]]
    assert len(best) == 5
    assert vehicles & set(best), f"no means of transport among {best}"
