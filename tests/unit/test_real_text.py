"""The real-text corpus: parsing and cleaning on a tiny fake package tree, the stable split, the missing-package
message, the cache, and one check on the installed Debian packages (installed by .ci/run)."""
import hashlib
import os

import pytest

from model.data import real_text
from model.data.real_text import Document

WORDNET_HEADER = "  1 This software and database is being provided to you, the LICENSEE, by  \n"
NOUN = ("00406612 04 n 02 fold 0 folding 0 005 @ 00404403 n 0000 | the act of folding; "
        '"he gave the napkins a double fold"  \n')
ADJ = ("00001740 00 a 01 able(a) 0 005 = 05207437 n 0000 | (usually followed by `to') having the means; "
       '"able to swim"\n')
VERB = "00001740 29 v 01 take_a_breath 0 005 @ 00001740 v 0000 | draw air into the lungs  \n"
COOKIE = ("A bore is someone who persists in holding\nhis own views.\n%\n"
          "\x1b[33mColours\x1b[m and\ttabs   are cleaned.\n\nSecond paragraph.\n%\n"
          "A BORE is someone who persists in holding his own views.\n%\n"
          "  /\\_/\\\n ( o.o )\n  > ^ <\n%\n")
CHINESE = "\x1b[32m《感遇》\x1b[m\n兰叶春葳蕤，\n桂华秋皎洁。\n%\n"


def fake_root(tmp_path, skip=()):
    """A root holding the files the packages install, minus the packages named in skip."""
    if "wordnet-base" not in skip:
        wn = tmp_path / "usr/share/wordnet"
        wn.mkdir(parents=True)
        (wn / "data.noun").write_text(WORDNET_HEADER + NOUN, encoding="latin-1")
        (wn / "data.adj").write_text(WORDNET_HEADER + ADJ, encoding="latin-1")
        (wn / "data.verb").write_text(VERB, encoding="latin-1")
        (wn / "data.adv").write_text(WORDNET_HEADER, encoding="latin-1")
    fo = tmp_path / "usr/share/games/fortunes"
    fo.mkdir(parents=True)
    if "fortunes" not in skip:
        (fo / "cookie").write_text(COOKIE)
        (fo / "cookie.dat").write_bytes(b"\x00\x02binary index")
        (fo / "cookie.u8").symlink_to("cookie")
        (fo / "fortunes").write_text("Short and sweet.\n%\n")
        (fo / "ascii-art").write_text("Letters drawn as a picture of many words here\n%\n")
    if "fortunes-zh" not in skip:
        (fo / "chinese").write_text(CHINESE)
        (fo / "tang300").write_text("床前明月光\n%\n")
        (fo / "song100").write_text("明月几时有\n%\n")
    return tmp_path


def test_documents_are_parsed_cleaned_and_deduplicated(tmp_path):
    docs = real_text.assemble(fake_root(tmp_path))
    assert docs == [
        Document("fold, folding: the act of folding. He gave the napkins a double fold.", "wordnet", "en"),
        Document("take a breath: draw air into the lungs.", "wordnet", "en"),
        Document("able: (usually followed by `to') having the means. Able to swim.", "wordnet", "en"),
        Document("《感遇》\n兰叶春葳蕤，\n桂华秋皎洁。", "fortunes-zh", "zh"),
        Document("A bore is someone who persists in holding his own views.", "fortunes", "en"),
        Document("Colours and tabs are cleaned.\nSecond paragraph.", "fortunes", "en"),
        Document("Short and sweet.", "fortunes", "en"),
        Document("明月几时有", "fortunes-zh", "zh"),
        Document("床前明月光", "fortunes-zh", "zh"),
    ]


def test_wrapped_lines_are_joined_and_verse_keeps_its_breaks():
    assert real_text.unwrap("one\ntwo\n\nthree") == "one two\nthree"
    prose = "很" * 30
    assert real_text.unwrap(f"{prose}\n长句。\n短句，\n诗。") == f"{prose}长句。\n短句，\n诗。"
    assert real_text.unwrap("中文\nand English") == "中文\nand English"


def test_character_pictures_are_recognised():
    assert real_text.looks_like_art("  /\\_/\\\n ( o.o )\n  > ^ <")
    assert not real_text.looks_like_art("A bore is someone (who) persists -- in holding!")


def test_split_is_by_hash_stable_and_disjoint():
    docs = [Document(f"document number {i}", "fortunes", "en") for i in range(400)]
    corpus = real_text.split(docs, percent=10)
    expected = {d.text for d in docs
                if int(hashlib.sha256(d.text.encode()).hexdigest()[:16], 16) % 100 < 10}
    assert {d.text for d in corpus.heldout} == expected
    assert len(corpus.train) + len(corpus.heldout) == 400
    assert 20 <= len(corpus.heldout) <= 60
    assert real_text.split(list(reversed(docs)), percent=10).heldout == list(reversed(corpus.heldout))


@pytest.mark.parametrize("package", ["wordnet-base", "fortunes", "fortunes-zh"])
def test_missing_package_names_the_install_command(tmp_path, package):
    with pytest.raises(real_text.MissingPackage, match=f"run `apt-get install -y {package}`"):
        real_text.assemble(fake_root(tmp_path, skip=(package,)))


def test_cache_is_written_under_the_env_directory_and_read_back(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTENTION_LAB_CACHE", str(tmp_path / "cache"))
    root = fake_root(tmp_path / "root")
    first = real_text.load(root)
    cached = list((tmp_path / "cache").glob("real_text-*.jsonl"))
    assert len(cached) == 1
    assert real_text.load(root) == first
    (root / "usr/share/games/fortunes/fortunes").write_text("A new fortune, longer than before.\n%\n")
    assert any("A new fortune" in d.text for d in real_text.load(root).train + real_text.load(root).heldout)


def test_installed_packages_give_the_documented_corpus():
    # the packages are installed by .ci/run; a missing one fails with the apt-get command to run
    corpus = real_text.load("/", cache=False)
    docs = corpus.train + corpus.heldout
    by_source = {s: [d for d in docs if d.source == s] for s in ("wordnet", "fortunes", "fortunes-zh")}
    assert len(by_source["wordnet"]) > 100_000
    assert len(by_source["fortunes"]) > 10_000
    assert len(by_source["fortunes-zh"]) > 4_000
    assert 0.04 < len(corpus.heldout) / len(docs) < 0.06
    assert any("The patient is respiring." in d.text for d in by_source["wordnet"])
    assert not any("\x1b" in d.text or "\ufffd" in d.text for d in docs)
    assert len({" ".join(d.text.lower().split()) for d in docs}) == len(docs)
    assert os.path.exists("/usr/share/wordnet/data.noun")
