"""How deep objects and arrays nest in JSON text, read in one linear pass, so that a deeply nested file is refused
before Python's recursive parser sees it (a config, a tokenizer file)."""
import re

_STRING = re.compile(r'"(?:[^"\\]|\\.)*+"?')       # to the end when unterminated: one pass, no retries
_BRACKET = re.compile(r"[\[\]{}]")


def json_depth_exceeds(text: str, limit: int) -> bool:
    """Whether objects and arrays in JSON text nest deeper than `limit` (brackets inside strings do not count)."""
    depth = 0
    for bracket in _BRACKET.finditer(_STRING.sub("", text)):
        depth += 1 if bracket.group() in "[{" else -1
        if depth > limit:
            return True
    return False
