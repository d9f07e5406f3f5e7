"""Mostly-Chinese text and the Chinese model that stands in for an English one (model/languages.py), on pages and
in `python -m model.coref` without --model."""
import json
import shutil

import pytest

from model import checkpoints, coref, languages


@pytest.mark.parametrize("text,chinese", [
    ("我有一只猫", True),
    ("小猫没有过马路，因为它太累了。", True),
    ("我 has 猫", False),                      # 2 characters of 5 letters: not half
    ("The cat sat on the mat.", False),
    ("I saw 猫 today", False),                  # one character among ten letters
    ("猫", False),                              # one character is too little to judge
    ("BERT 的注意力机制很重要", True),          # 8 characters of 12 letters
    ("Transformer 的注意力机制很重要", False),  # 8 of 19
    ("，。！？123", False),
])
def test_mostly_chinese_counts_characters_against_letters(text, chinese):
    assert languages.mostly_chinese(text) is chinese


def meta(kind: str, config_kind: str, rule: str, corpus: str, head=None) -> dict:
    out = {"kind": kind, "config": {"kind": config_kind}, "text_input": rule, "recipe": {"corpus": corpus}}
    return out | ({"coref_head": head} if head else {})


EN, ZH = "model.data.real_text (train split)", "model.data.zh_text (train split)"
SHIPPED = {"general_gpt": meta("decoder", "decoder", "bos", EN), "zh_gpt": meta("decoder", "decoder", "bos", ZH),
           "general_encoder": meta("encoder", "encoder", "cls_sep", EN),
           "zh_encoder": meta("encoder", "encoder", "cls_sep", ZH),
           "coref_encoder": meta("coref_encoder", "encoder", "cls_sep", EN, [3, 0]),
           "zh_coref": meta("coref_encoder", "encoder", "cls_sep", ZH, [2, 1])}


def test_a_stand_in_reads_text_the_same_way():
    assert languages.chinese_stand_in(SHIPPED["general_gpt"], SHIPPED) == "zh_gpt"
    assert languages.chinese_stand_in(SHIPPED["general_encoder"], SHIPPED) == "zh_encoder"
    assert languages.chinese_stand_in(SHIPPED["coref_encoder"], SHIPPED) == "zh_coref"    # keeps its head
    assert languages.chinese_stand_in(SHIPPED["zh_gpt"], SHIPPED) is None                 # reads Chinese already


def test_without_a_chinese_model_of_the_kind_there_is_no_stand_in():
    no_coref = {n: m for n, m in SHIPPED.items() if n != "zh_coref"}
    assert languages.chinese_stand_in(SHIPPED["coref_encoder"], no_coref) == "zh_encoder"   # an encoder still
    only_decoder = {n: m for n, m in SHIPPED.items() if n in ("general_gpt", "zh_gpt", "general_encoder")}
    assert languages.chinese_stand_in(SHIPPED["general_encoder"], only_decoder) is None


def test_coref_without_model_picks_a_chinese_coreference_model_on_chinese_text(tmp_path, monkeypatch):
    """A copy of the shipped coreference encoder relabelled as trained on Chinese is what `model.coref` runs on
    Chinese text; English text keeps the English model."""
    assets = tmp_path / "assets"
    assets.mkdir()
    for ext in (".safetensors", ".json"):
        shutil.copy(checkpoints.ASSETS / f"coref_encoder{ext}", assets / f"coref_encoder{ext}")
        shutil.copy(checkpoints.ASSETS / f"coref_encoder{ext}", assets / f"zh_test_coref{ext}")
    m = json.loads((assets / "zh_test_coref.json").read_text())
    m["name"], m["recipe"]["corpus"] = "zh_test_coref", ZH
    (assets / "zh_test_coref.json").write_text(json.dumps(m))
    monkeypatch.setattr(checkpoints, "ASSETS", assets)
    assert coref.default_model("小猫没有过马路，因为它太累了。") == "zh_test_coref"
    assert coref.default_model("The cat did not cross the road because it was tired.") == "coref_encoder"
    (assets / "zh_test_coref.json").unlink()
    assert coref.default_model("小猫没有过马路，因为它太累了。") == "coref_encoder"     # none shipped: the default


def test_coref_finds_chinese_pronouns_as_whole_words(capsys):
    coref.main(["小猫没有过马路，因为它太累了。", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert [p["token"] for p in out["pronouns"]] == ["它"]
    assert out["tokens"][out["pronouns"][0]["index"]] == "它"
    assert "小猫" in out["tokens"]                        # jieba's word, not its characters
