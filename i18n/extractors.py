"""Babel extractors for the data files the app shows text from, named in babel.cfg's [extractors] section.

    extract_playlist: a playlist file (the lecture plan, app_pages/_playlist.py's format) -> each view's section,
                      title and note"""
import json

PLAYLIST_FIELDS = ("section", "title", "note")      # what the lecture page shows of each view


def extract_playlist(fileobj, keywords, comment_tags, options):
    """Babel's extractor interface: yields (line, None, text, [comment]) for each view's section, title and note,
    with the line that holds it and a comment naming the view and the field."""
    text = fileobj.read().decode(options.get("encoding", "utf-8"))
    lines, at = text.splitlines(), 0
    for i, view in enumerate(json.loads(text).get("views", []), 1):
        for field in PLAYLIST_FIELDS:
            value = view.get(field) if isinstance(view, dict) else None
            if not isinstance(value, str) or not value.strip():
                continue
            quoted = f'"{field}": {json.dumps(value, ensure_ascii=False)}'
            at = next((n for n in range(at, len(lines)) if quoted in lines[n]), at)   # as json.dump wrote it
            yield at + 1, None, value, [f"view {i}: {field}"]
