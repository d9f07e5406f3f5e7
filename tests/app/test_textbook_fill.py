"""The fill-in tab says what the shipped encoder does with the textbook's own masked example (12.6.1), computed:
the rank it gives "train", checked here by hand from the encoder's own output layer."""
import re

import numpy as np
import torch

from model import checkpoints
from model.data import bpe, text_input
from tests.app.conftest import open_link


def test_the_textbook_example_caption_gives_trains_rank_as_the_encoder_computes_it():
    at = open_link("generation.py", gen_tab="Fill-in (encoder)")
    said = next(c.value for c in at.caption if c.value.startswith("The textbook's own example (12.6.1)"))
    rank, p = re.search(r"ranks “train” (\d+) \(p = ([0-9.]+)\)", said).groups()
    model, meta = checkpoints.load("general_encoder")
    tok = text_input.tokenizer_of(meta)
    enc = text_input.encode(tok, "The [MASK] pulled into the station.", "cls_sep", masks=True)
    at_mask = enc.ids.index(bpe.MASK)
    with torch.no_grad():
        logits = model(torch.tensor([enc.ids]))[0, at_mask].double()
    logits[:len(bpe.SPECIALS)] = float("-inf")
    probs = torch.softmax(logits, -1).numpy()
    plain = text_input.encode(tok, "The train pulled into the station.", "cls_sep")
    train = plain.ids[at_mask]                                   # " train" is one piece in the shipped BPE
    assert plain.tokens[at_mask].strip() == "train"
    assert int(rank) == 1 + int((probs > probs[train]).sum())
    assert float(p) == round(float(probs[train]), 4)
    assert np.isclose(probs.sum(), 1.0)


def test_the_translation_page_says_the_tutorials_cat_example_runs_the_other_way():
    vocab = checkpoints.read_meta("translator")["tokenizer"]["vocab"]
    missing = [w for w in ("i", "have", "a", "cat") if w not in vocab]
    assert missing                                                  # the example cannot run on this translator
    at = open_link("translation.py")
    said = next(c.value for c in at.caption if c.value.startswith("The tutorial's example (§5.1)"))
    assert ", ".join(f"“{w}”" for w in missing) + " are not among them" in said
    words = [w for w in vocab if not (w.startswith("[") and w.endswith("]"))]
    assert f"its own {len(words)} English words" in said
