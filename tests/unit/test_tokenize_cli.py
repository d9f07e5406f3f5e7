"""`python -m model.tokenize`: the JSON shape, no [UNK] with the shipped BPE, a model's own word tokenizer
(which does count unknown words), and readable errors."""
import json
import subprocess
import sys

import pytest

from harness.hostile_inputs import TEXTS
from model.tokens import main, tokenize


def test_cli_prints_pieces_ids_unk_and_decoded_text():
    text = "I love machine learning 我有一只猫 [CLS]"
    out = subprocess.run([sys.executable, "-m", "model.tokenize", text, "--json"],
                         capture_output=True, text=True, check=True).stdout
    result = json.loads(out)
    assert set(result) == {"pieces", "ids", "unk", "decoded"}
    assert result["unk"] == 0 and result["decoded"] == text
    assert len(result["pieces"]) == len(result["ids"])
    assert result["pieces"][:4] == ["I", " love", " machine", " learning"]
    assert min(result["ids"]) >= 7          # the typed [CLS] is text


@pytest.mark.parametrize("name", ["emoji_zwj", "chinese", "special_tokens", "control_chars", "html_script"])
def test_hostile_texts_have_no_unknown_pieces(name):
    result = tokenize(TEXTS[name])
    assert result["unk"] == 0 and result["decoded"] == TEXTS[name]
    assert all("\ufffd" not in p for p in result["pieces"])


def test_masks_flag_turns_mask_spellings_into_the_mask_token():
    assert tokenize("The <mask> pulled", masks=True)["pieces"][1] == "[MASK]"
    assert "[MASK]" not in tokenize("The <mask> pulled")["pieces"]


def test_model_with_a_word_tokenizer_counts_unknown_words():
    result = tokenize("The restaurant loves machine learning", model="translator")
    vocab = set(json.load(open("assets/translator.json"))["tokenizer"]["vocab"])
    words = ["the", "restaurant", "loves", "machine", "learning"]
    expected_unknown = sum(w not in vocab for w in words)
    assert 0 < expected_unknown < len(words)
    assert result["unk"] == expected_unknown
    assert result["pieces"] == words


def test_unknown_model_is_a_readable_error(capsys):
    assert main(["hello", "--model", "no_such_model", "--json"]) == 2
    err = capsys.readouterr().err
    assert "no model 'no_such_model'" in err and "general_gpt" in err
