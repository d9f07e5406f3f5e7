"""Model work the pages' cached runs call: the coreference model's held-out sets and an image classifier's
normalisation, checked against sizes and numbers written out by hand."""
import numpy as np
import pytest
import torch

from model.analysis.coref_scores import heldout_accuracy, heldout_sets
from model.architectures.vit import ViT, ViTConfig
from model.tasks.image_run import classify
from tests.conftest import save_random_text_model


def test_the_heldout_sets_hold_both_sides_of_each_pair_and_a_third_as_many_passages():
    held = heldout_sets(6)
    assert (len(held.pairs), len(held.frames), len(held.passages)) == (12, 12, 4)
    assert held.sentences == held.pairs + held.frames


def test_heldout_accuracy_is_a_share_per_head_over_every_pronoun(tmp_path):
    held = heldout_sets(3)
    text = " ".join(s.text for s in held.sentences + held.passages)
    from model import handle
    save_random_text_model(tmp_path, "tiny", text, d_model=16, n_heads=2, n_layers=2, d_ff=32, max_len=256)
    h = handle.load("tiny", tmp_path)
    acc = heldout_accuracy(h.model, h.tokenizer, 3)
    assert acc.accuracy.shape == (2, 2) and ((0 <= acc.accuracy) & (acc.accuracy <= 1)).all()
    assert acc.n_refs == sum(len(s.refs) for s in held.sentences + held.passages)
    assert 0 <= acc.baseline_first_noun <= 1 and acc.baseline_first_noun + acc.baseline_nearest_noun == pytest.approx(1)


def test_classify_normalises_grey_images_as_the_model_was_trained():
    torch.manual_seed(0)
    model = ViT(ViTConfig(n_classes=3, d_model=16, n_layers=1, d_ff=32)).eval()
    images = np.full((2, 8, 8), 0.25)                       # grey at the training mean: normalised to zeros
    probs = classify(model, images, {"mean": [0.25], "std": [0.5]})
    with torch.no_grad():
        expected = torch.softmax(model(torch.zeros(1, 1, 8, 8)), -1)[0].numpy()
    assert probs.shape == (2, 3)
    np.testing.assert_allclose(probs, [expected, expected], atol=1e-6)
