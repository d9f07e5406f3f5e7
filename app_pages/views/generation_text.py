"""How the decoder page writes what the model read and wrote: a prompt with its continuation in bold, a piece as
a code span, and a head pick (one head or the mean of a layer's heads) as the picker shows it."""
import re
import unicodedata

from app_pages._markup import md
from i18n import N_, _
from labels import head_only

MEAN = N_("mean of heads")


def shown_head(h) -> str:
    """A head pick as the selectbox shows it (and the URL holds it): "H1" or the translated mean."""
    return _(h) if isinstance(h, str) else head_only(h)


def continuation(tok, ids, n_prompt: int) -> str:
    """The text ids[n_prompt:] add to the prompt, decoded with the prompt so spaces (and characters whose bytes
    straddle the two) come out right; special tokens left out."""
    head, full = tok.decode(ids[:n_prompt], skip_special=True), tok.decode(ids, skip_special=True)
    return full[len(head):] if full.startswith(head) else tok.decode(ids[n_prompt:], skip_special=True,
                                                                      strip_prefix=False)


def written(head: str, tail: str) -> str:
    """Markdown of a prompt and its continuation, the continuation in bold line by line; typed text shown as
    typed. Spaces stay outside the ** (where they would break it), and a hair space (Unicode whitespace) goes
    before ** that would otherwise sit between a letter and punctuation, where CommonMark would not open it."""
    out = md(head).replace("\n", "  \n")
    for n, line in enumerate(tail.split("\n")):
        out += "  \n" if n else ""
        core = line.strip()
        if not core:
            out += line
            continue
        lead = line[:len(line) - len(line.lstrip())]
        prev = (out + lead)[-1:]
        starts_punct = unicodedata.category(core[0])[0] in "PS"
        gap = "\u200a" if prev and starts_punct and not (prev.isspace() or unicodedata.category(prev)[0] in "PS") \
            else ""
        out += f"{lead}{gap}**{md(core)}**{line[len(line.rstrip()):]}"
    return out


def code(piece: str) -> str:
    """A piece as a Markdown code span (a fence longer than any run of backticks inside it)."""
    fence = "`" * (max((len(r) for r in re.findall("`+", piece)), default=0) + 1)
    pad = " " if "`" in piece else ""
    return f"{fence}{pad}{piece}{pad}{fence}"
