"""Typed text shown literally: inside st.markdown (Markdown and LaTeX made inert), inside a Plotly title
(which renders a few HTML tags), and as a token whose whitespace and invisible characters are drawn."""
import html
import re

_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|~$<>])")


def md(text) -> str:
    """Markdown and LaTeX ($) punctuation backslash-escaped, so the text shows as typed."""
    return _MARKDOWN.sub(r"\\\1", str(text))


def esc(text: str) -> str:
    """HTML-escaped for a Plotly title or hover."""
    return html.escape(text, quote=False)


def visible(piece: str) -> str:
    """A piece with its whitespace drawn (␣ space, ↵ newline, ⇥ tab) and invisible characters named (U+200D), so a
    chip or an axis label shows where a piece starts."""
    piece = piece.replace(" ", "␣").replace("\n", "↵").replace("\t", "⇥")
    return "".join(c if c.isprintable() else f"U+{ord(c):04X}" for c in piece)
