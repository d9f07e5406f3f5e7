"""Which language a shipped text model reads, and the Chinese model that stands in for an English one on text
that is mostly Chinese (the pages and `python -m model.coref` pick it by themselves)."""
from model.data.zh_text_sources import han_count

CHINESE_CORPUS = "model.data.zh_text"     # the recipe's corpus of every model trained on modern Chinese
MIN_HAN = 2                               # typed text needs this many Chinese characters ...
MIN_HAN_SHARE = 0.5                       # ... and this share of its letters to count as Chinese


def mostly_chinese(text: str) -> bool:
    """At least MIN_HAN Chinese characters, and at least MIN_HAN_SHARE of the letters (punctuation, digits and
    spaces left out): "我有一只猫" is Chinese, "I saw 猫 today" is not."""
    letters = sum(c.isalpha() for c in text)
    han = han_count(text)
    return han >= MIN_HAN and han >= MIN_HAN_SHARE * letters


def reads_chinese(meta: dict) -> bool:
    """Whether a model was trained on the modern-Chinese corpus (its recipe names it)."""
    return str(meta.get("recipe", {}).get("corpus", "")).startswith(CHINESE_CORPUS)


def chinese_stand_in(meta: dict, shipped: dict[str, dict]) -> str | None:
    """The shipped Chinese model (name -> meta in `shipped`) that reads text the way `meta`'s model does: of the
    same kind and text rule, with a coreference head when `meta` has one (and none otherwise) where one is shipped;
    None when none fits or `meta`'s model reads Chinese already."""
    if reads_chinese(meta):
        return None
    wanted = "encoder" if meta["kind"] == "coref_encoder" else meta["kind"]
    fits = [n for n, m in sorted(shipped.items()) if reads_chinese(m) and m["config"].get("kind") == wanted
            and m.get("text_input") == meta.get("text_input")]
    fits.sort(key=lambda n: ("coref_head" in shipped[n]) != ("coref_head" in meta))     # a head kept, or none added
    return fits[0] if fits else None
