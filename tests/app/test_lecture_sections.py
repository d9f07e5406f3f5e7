"""The lecture page names the textbook's sections in the interface's language: the plan writes them as the Chinese
textbook does ("教材 12.6.2"), which reads "textbook 12.6.2" in English and stays 教材 in Chinese."""
from app_pages import _playlist
from app_pages.views import lecture
from tests.app.conftest import open_link

PLAN = _playlist.prepared(list(lecture.pages()))


def test_a_textbook_section_reads_textbook_in_english_and_jiaocai_in_chinese():
    k = next(i for i, v in enumerate(PLAN) if v.section.startswith("教材"))
    number = PLAN[k].section.split()[1]
    at = open_link("lecture.py", lecture_step=str(k + 1))
    assert not at.exception
    caption = next(c.value for c in at.caption if c.value.startswith("View ")).replace("\\", "")   # md() escapes
    assert caption.endswith(f" · textbook {number}") and "教材" not in caption
    jump = at.selectbox(key="lecture_jump")
    assert all("教材" not in jump.format_func(i) for i in range(len(PLAN)))
    assert jump.format_func(k) == f"{k + 1} · textbook {number} · {PLAN[k].title}"
    zh = open_link("lecture.py", lecture_step=str(k + 1), lang="zh")
    assert not zh.exception
    assert any(c.value.replace("\\", "").endswith(f" · 教材 {number}") for c in zh.caption)
