"""The hostile-input catalogue: texts that every text box must turn into a clear message or a normal
result, never an exception, each with the messages a person must get on each page; and the kinds of
weight-file damage (tests/app/test_weight_damage.py). Images have their own catalogue
(tests/unit/test_images_catalogue.py)."""
from dataclasses import dataclass, field

XSS_IMG = '<img src=x onerror="window.__xss=1">'
XSS_SCRIPT = "<script>window.__xss=1</script>"

# Parts of the messages, as a person reads them (markdown escapes and HTML entities undone).
NOT_AMONG = "The translator only knows the words of its generated corpus, and these are not among them: "
NO_PRONOUN = ("info", "This text has no pronoun (it, they, their, …)")
REORDER = ("error", "it must use exactly the same words, reordered")
TOO_LONG_EXPLORER = ("warning", "tokens; this model reads at most 128, so only the first 128 are shown.")
TOO_LONG_COREF = ("info", "tokens; this model reads at most 128, so only the first 128 are shown.")
TOO_LONG_STEPS = ("info", "tokens; this page follows the first 32.")
GENERATION_TOO_LONG = ("error", "past this model's 128 positions")
EMPTY = {"explorer": (("warning", "Type some text to see its attention."),),
         "coreference": (("info", "Type a sentence with a pronoun"),),
         "generation": (("error", "The prompt is empty: type at least one word."),),
         "translation": (("error", "Type an English sentence to translate."),),
         "step_by_step": (("warning", "The text is empty; showing the default sentence."),),
         "positional": (("info", "Type a sentence in both boxes"),)}


@dataclass(frozen=True)
class Hostile:
    """A text and what each page must say about it: page -> ((kind, part of a message), ...), kind being
    "error", "warning" or "info". A page not named must show no error."""
    text: str
    says: dict = field(default_factory=dict)


def _q(*words: str) -> str:
    return ", ".join(f"“{w}”" for w in words)


def _says(*parts: dict) -> dict:
    """Merge per-page expectations."""
    out: dict = {}
    for part in parts:
        for page, expected in part.items():
            out[page] = out.get(page, ()) + tuple(expected)
    return out


def _unknown(words: str, translator: str, *, pronoun: bool = False, steps: str | None = None) -> dict:
    """Text with words outside the translator's vocabulary: only the translator names them (`translator` starts
    its sorted list); every other page reads any text in BPE pieces. `words` and `steps` name the words a
    word-level vocabulary would have missed (kept to document each entry). pronoun: the text has one."""
    return {"coreference": () if pronoun else (NO_PRONOUN,), "translation": (("info", NOT_AMONG + translator),),
            "positional": (REORDER,)}


def _clipped(chars: str, explorer: bool = True) -> dict:
    """The notes of a text cut to the length a page reads (20,000 characters, 2,000 for generation, whose 2,000
    characters are more BPE pieces than general_gpt's 128 positions)."""
    note = f"The text has {chars} characters; only the first"
    return {"generation": (("warning", note + " 2,000 are used."), GENERATION_TOO_LONG),
            **({"explorer": (("warning", note + " 20,000 are used."),)} if explorer else {})}


CATALOGUE = {
    "empty": Hostile("", EMPTY),
    "whitespace": Hostile("   \n\t  \n", EMPTY),
    "100k_chars": Hostile("the restaurant was busy . " * 4000, _says(_clipped("104,000"), {
        "explorer": (TOO_LONG_EXPLORER,), "coreference": (TOO_LONG_COREF, NO_PRONOUN),
        "translation": (("info", NOT_AMONG),), "step_by_step": (TOO_LONG_STEPS,), "positional": (REORDER,)})),
    "one_long_word": Hostile("a" * 50_000, _says(_clipped("50,000"), {
        "coreference": (NO_PRONOUN, TOO_LONG_COREF), "explorer": (TOO_LONG_EXPLORER,),
        "step_by_step": (TOO_LONG_STEPS,), "translation": (("info", NOT_AMONG + "“" + "a" * 40),),
        "positional": (("error", "this model's learned position table stops at max_len=128"),)})),
    "emoji": Hostile("The restaurant 🍔🍟 refused to serve me 😡 because it was closed 🚫",
                     _unknown("🍔, 🍟, 😡, 🚫", _q("because", "closed", "it", "me"), pronoun=True)),
    "emoji_zwj": Hostile("👩‍👩‍👧‍👦 ate the raccoon 🦝",
                         _unknown("\u200d, 👦, 👧, 👩, 🦝", _q("ate", "raccoon", "\u200d"))),
    "chinese": Hostile("餐厅拒绝给我做火腿三明治，因为它只做素食。",       # 它 is a pronoun the page finds
                       _unknown("。, 三, 为, 做, 厅", _q("。", "三", "为", "做"), pronoun=True)),
    "mixed_chinese": Hostile("The restaurant 餐厅 near the station 车站",
                             _unknown("station, 厅, 站, 车, 餐", _q("厅", "站", "车", "餐") + ".")),
    "right_to_left": Hostile("המסעדה סירבה להגיש לי כריך כי היא צמחונית",
                             _says(_unknown("א, ב, ג", _q("א", "ב", "ג")), {"step_by_step": (TOO_LONG_STEPS,)})),
    "arabic": Hostile("رفض المطعم أن يقدم لي شطيرة", _unknown("أ, ا, ة", _q("أ", "ا", "ة"))),
    "bidi_override": Hostile("the \u202eretsaurant\u202c refused",
                             _unknown("retsaurant, \u202c, \u202e", _q("refused", "retsaurant", "\u202c", "\u202e"))),
    "combining_marks": Hostile("the re\u0301stau\u0300rant\u0308 Z\u0351\u0352\u0353a\u0354\u0355l\u0356g\u0357o",
                               _unknown("g, l, o, rant, re, stau, z", _q("a", "g", "l", "o", "rant", "re", "stau"))),
    "control_chars": Hostile("the\x01restaurant\x07refused\x1b[31m to serve",
                             _unknown("\x01, \x07, \x1b, 31m, [", _q("\x01", "\x07", "\x1b", "31m", "[", "refused"))),
    "nul": Hostile("the restaurant\x00 refused\x00", _unknown("\x00", _q("\x00", "refused") + ".")),
    "html_img": Hostile(XSS_IMG, _unknown('", 1, <, =, >, _, img, onerror, src, window, x, xss',
                                          _q('"', "1", "<", "=", ">", "_", "img", "onerror", "src"))),
    "html_script": Hostile(XSS_SCRIPT, _unknown("/, 1, <, =, >, _, script, window, xss",
                                                _q("/", "1", "<", "=", ">", "_", "script", "window", "xss"))),
    "html_in_sentence": Hostile(f"The restaurant {XSS_IMG} refused because it {XSS_SCRIPT} was closed", _says(
        _unknown('", /, 1, <, =, >, _, img, onerror, script', _q('"', "/", "1", "<", "=", ">", "_", "because"),
                 pronoun=True, steps='", 1, <, =, >, _, img, onerror, script'), {"step_by_step": (TOO_LONG_STEPS,)})),
    "markdown_injection": Hostile(
        "**bold** [link](javascript:alert(1)) ![img](http://example.com/x.png) # Title\n---\n| a |",
        _says(_unknown("!, #, (, ), *, -, /, 1, :, [, ], alert, bold", _q("!", "#", "(", ")", "*", "-", "/", "1"),
                       steps="!, (, ), *, /, 1, :, [, ], alert, bold"), {"step_by_step": (TOO_LONG_STEPS,)})),
    "latex": Hostile("$\\frac{1}{0}$ $$\\begin{matrix}a\\end{matrix}$$",
                     _unknown("$, 0, 1, \\, begin, frac, matrix", _q("$", "0", "1", "\\", "a", "begin", "end"))),
    "only_unknown": Hostile("zyxxy quorbl flembic snarfed wibbly",
                            _unknown("flembic, quorbl, snarfed, wibbly, zyxxy",
                                     _q("flembic", "quorbl", "snarfed", "wibbly", "zyxxy") + ".")),
    "only_punctuation": Hostile("?!.,;:…—()[]{}\"'", _unknown("!, \", ', (, ), :, ;, ?, [, ], —, …",
                                                              _q("!", '"', "'", "(", ")", ",", ":", ";", "["))),
    "only_digits": Hostile("0 1 2 3 4 5 6 7 8 9 3.14159 1e10",
                           _unknown("0, 1, 14159, 1e10, 2", _q("0", "1", "14159", "1e10", "2"))),
    "special_tokens": Hostile("[CLS] [SEP] [MASK] [PAD] [UNK] [BOS] [EOS]",
                              _unknown("[, ], bos, cls, eos, mask, pad, sep, unk",
                                       _q("[", "]", "bos", "cls", "eos", "mask", "pad", "sep", "unk") + ".")),
    "many_masks": Hostile("[MASK] " * 300, _says(_clipped("2,100", explorer=False), {
        "explorer": (TOO_LONG_EXPLORER,),
        "coreference": (TOO_LONG_COREF, NO_PRONOUN),
        "generation": (GENERATION_TOO_LONG,),
        "translation": (("info", NOT_AMONG + _q("[", "]", "mask") + "."),),
        "step_by_step": (TOO_LONG_STEPS,),
        "positional": (("error", "this model's learned position table stops at max_len=128"),)})),
    "surrogate_like": Hostile("the restaurant \udcff refused".encode("utf-8", "surrogatepass").decode("utf-8",
                                                                                                     "replace"),
                              _unknown("\ufffd", _q("refused", "\ufffd") + ".")),
    "newlines": Hostile("\n" * 5000, _says(EMPTY, {"generation": (("warning", "The text has 5,000 characters; only "
                                                                          "the first 2,000 are used."),)})),
    "tabs_and_crlf": Hostile("the\trestaurant\r\nrefused\rto\tserve", {
        "coreference": (NO_PRONOUN,), "translation": (("info", NOT_AMONG + _q("refused", "serve") + "."),),
        "positional": (REORDER,)}),
    "very_long_line_of_pronouns": Hostile("it they their them " * 400, _says(_clipped("7,600", explorer=False), {
        "explorer": (TOO_LONG_EXPLORER,), "coreference": (TOO_LONG_COREF,),
        "generation": (GENERATION_TOO_LONG,),
        "translation": (("info", NOT_AMONG + _q("i", "it", "their", "them", "they") + "."),),
        "step_by_step": (TOO_LONG_STEPS,), "positional": (REORDER,)})),
    "sql_like": Hostile("'; DROP TABLE tokens; --", _unknown("', -, ;, drop, table, tokens",
                                                              _q("'", "-", ";", "drop", "table", "tokens") + ".")),
    "format_string": Hostile("{0} {tokens} %s %d {__class__}",
                             _unknown("%, 0, _, class, d, s, tokens", _q("%", "0", "_", "class", "d", "s", "tokens"))),
}
TEXTS = {name: h.text for name, h in CATALOGUE.items()}

WEIGHT_DAMAGE = ("missing_weights", "missing_config", "truncated_weights", "mismatched_config", "garbage_json",
                 "nested_json", "huge_d_model", "zero_heads", "wrong_shape_tensor")
