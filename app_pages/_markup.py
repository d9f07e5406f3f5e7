"""Typed text shown literally: inside st.markdown (Markdown and LaTeX made inert) and inside a Plotly title
(which renders a few HTML tags)."""
import html
import re

_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|~$<>])")


def md(text) -> str:
    """Markdown and LaTeX ($) punctuation backslash-escaped, so the text shows as typed."""
    return _MARKDOWN.sub(r"\\\1", str(text))


def esc(text: str) -> str:
    """HTML-escaped for a Plotly title or hover."""
    return html.escape(text, quote=False)
