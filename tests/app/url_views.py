"""What the link tests of tests/app/test_url_views_*.py share: a 100,000-character text, a text carrying HTML, the
stale-link notice as the page writes it, a figure's title, and the checks that no markup got through and that a
long link text was clipped and left the URL."""
import json

LONG = ("the chef cooked the meal because it was late . " * 2_200)[:100_000]
HTML = '<img src=x onerror="alert(1)"><b>the</b> chef'


def stale(what: str, asked: str, shown: str) -> str:
    """The notice _url.stale_link gives (text as the notice escapes it)."""
    return f"The link asked for {what} “{asked}”, which is not on this page now; showing “{shown}”."


def title(spec: dict) -> str:
    t = spec["layout"].get("title", {})
    return t.get("text", "") if isinstance(t, dict) else str(t)


def no_markup_injected(at, *tags: str):
    """No element that renders HTML (markdown with allow_html, a Plotly title or annotation) carries the tags."""
    for m in at.get("markdown"):
        if m.proto.allow_html:
            assert not any(t in m.value for t in tags), m.value
    for c in at.get("plotly_chart"):
        spec = json.loads(c.proto.spec)
        texts = [title(spec)] + [a.get("text", "") for a in spec["layout"].get("annotations", [])]
        assert not any(t in x for t in tags for x in texts), texts


def clipped_and_unbound(at, key: str, kind: str, message: str):
    """A 100k link text: the page's usual notice, the caption that it stays out of links, and the next run drops
    it from the URL."""
    assert message in [e.value for e in getattr(at, kind)]
    assert any(c.value.startswith("This text has 100,000 characters, more than the 2,000 a link carries")
               for c in at.caption)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert key not in at.query_params
