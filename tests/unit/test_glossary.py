"""One Chinese term per idea, the course texts' own (i18n/glossary.json): every message of the Chinese catalogue whose
English names a glossary idea says it with the glossary's Chinese and with none of the variants listed as wrong; a
word the seeds use for two ideas (片段: a word piece, a span) never stands bare; and each term is quoted from the
line of the course text the glossary names."""
import json
import re
from pathlib import Path

import pytest

from i18n import catalogues
from tests.seeds import SEEDS

ROOT = Path(__file__).resolve().parents[2]
GLOSSARY = json.loads((ROOT / "i18n" / "glossary.json").read_text(encoding="utf-8"))
# what is not the interface's own English: placeholders, `code`, quoted text and names of files or modules
NOT_WORDS = re.compile(r"\{[^{}]*\}|`[^`]*`|“[^”]*”|‘[^’]*’|\"[^\"]*\"|\S*[_/]\S*|\b\w+\.\w+\S*")


def applies(term: dict, module: str, english: str) -> bool:
    """Whether a glossary term is named by this English message where this module uses it."""
    if module in term.get("not_in", ()) or ("only_in" in term and module not in term["only_in"]):
        return False
    if not re.search(term["match"], english, re.IGNORECASE):
        return False
    if "context" in term and not re.search(term["context"], english, re.IGNORECASE):
        return False
    return not ("unless" in term and re.search(term["unless"], english, re.IGNORECASE))


def bare(chinese: str, rule: dict) -> bool:
    """Whether `chinese` writes rule["zh"] outside every longer term that may hold it."""
    for longer in rule["inside"]:
        chinese = chinese.replace(longer, "")
    return rule["zh"] in chinese


def problems(messages) -> list[str]:
    """messages: (module, English, Chinese). One line per term said another way, or a wrong variant used."""
    out = []
    for module, english, chinese in messages:
        english = NOT_WORDS.sub(" ", english)
        for term in GLOSSARY["terms"]:
            if not applies(term, module, english):
                continue
            if not any(zh in chinese for zh in term["zh"]):
                out.append(f"{module}: {term['en']!r} is not {'/'.join(term['zh'])}: {chinese[:80]}")
            out += [f"{module}: {term['en']!r} written {w!r}: {chinese[:80]}" for w in term.get("wrong", ())
                    if re.search(w, chinese)]
        out += [f"{module}: bare {rule['zh']!r} ({rule['why']}): {chinese[:80]}" for rule in GLOSSARY["never_bare"]
                if bare(chinese, rule)]
    return out


def module_of(path: str) -> str:
    """app_pages/views/masks.py -> "app_pages.views.masks", the name a glossary term's only_in / not_in uses."""
    return ".".join(Path(path).with_suffix("").parts)


def catalogue_messages():
    """(module, English, Chinese) for every translated message of the Chinese catalogue, once for each module that
    uses it (its locations); a plural's English is both its forms."""
    out = []
    for m in catalogues.read("zh"):
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        if all(strings):
            for module in dict.fromkeys(module_of(path) for path, _line in m.locations):
                out.append((module, " ".join(ids), " ".join(strings)))
    return out


def test_the_catalogues_say_each_idea_with_the_glossary_term():
    assert problems(catalogue_messages()) == []


def test_the_checker_finds_a_wrong_term_a_missing_one_and_a_bare_word():
    said = problems([
        ("app_pages.views.generation", "BPE pieces", "BPE 子词"),                       # the other word
        ("app_pages.views.generation", "The best {n} pieces", "最好的 {n} 个片段"),       # bare: which idea?
        ("app_pages.views.finetune_tasks", "the best span", "最好的文本片段"),            # right
        ("app_pages._pages", "dilated windows", "空洞窗口"),                              # wrong and missing
        ("model.engine.masks", "windows shifted by s", "窗口平移 s"),                      # Swin's shift
        ("app_pages.views.explorer_qk", "keys shifted by a vector", "键平移了一个向量"),     # a translation: fine
        ("app_pages.views.coreference_patching", "no patch can flip it", "任何修补都不能"),  # activation patching
        ("app_pages.views.tokenization", "span", "字符范围"),                              # a piece's characters
        ("app_pages.views.images", "`python -m model.patch` and {patches}", "命令"),      # code and placeholders
    ])
    assert len(said) == 8, said
    assert "'piece (of a word: a BPE or WordPiece token)' written '子词'" in said[1]
    assert "bare '片段'" in said[3]
    assert sum("dilated" in s for s in said) == 2 and sum("shift (of Swin" in s for s in said) == 2


def test_each_term_comes_from_the_line_of_the_course_text_it_names():
    if not SEEDS.is_dir():
        pytest.skip(f"the course texts are not at {SEEDS}")
    for term in GLOSSARY["terms"]:
        if term["seed"] is None:
            assert term.get("note"), f"{term['en']}: a term the seeds do not give needs a note saying why"
            continue
        name = GLOSSARY["seeds"][term["seed"]].split()[0]
        lines = (SEEDS / name).read_text(encoding="utf-8").splitlines()
        assert term["quote"] in lines[term["line"] - 1], (term["en"], term["line"])
        assert any(zh in term["quote"] or zh.replace(" token", "") in term["quote"] for zh in term["zh"]) or \
            term.get("note"), f"{term['en']}: its Chinese is not in the quoted line and no note says why"


def test_the_glossary_decides_the_words_the_seeds_use_for_two_ideas():
    notes = " ".join(t.get("note", "") for t in GLOSSARY["terms"])
    assert "词片段" in notes and "文本片段" in notes                   # 片段: a piece or a span
    assert "平移" in notes and "移位" in notes and "偏移" in notes      # 平移: a translation; a shift is not
