"""Chinese typed into a page that runs an English model: the page runs the shipped Chinese model of the same kind
(model/languages.py) and says so in the interface's language; a switch keeps the English model, to compare."""
import json
import re
import subprocess
import sys
from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

import i18n
from harness.server import wait_for_app

ZH = i18n.catalogue("zh").gettext
PROMPT = "我有一只猫，它喜欢"
NOTICE = "The text is mostly Chinese, so this page runs **{zh}**, trained on modern Chinese, instead of **{name}**."


@pytest.fixture
def link(browser, server_url):
    """open(path, **params) -> a 1280 × 720 page on that link in the Chinese interface (its own context: a deep
    link's probe of <path>/_stcore/health is a 404 the browser logs, which is not an error of the page)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))

    def open_link(path: str, **params):
        page.goto(f"{server_url}/{path}?{urlencode({'lang': 'zh', **params})}")
        wait_for_app(page, timeout=180_000)
        return page

    yield open_link
    ctx.close()
    assert not errors, errors


def shown_notice(zh: str, name: str) -> str:
    """The notice as the page shows it in Chinese, markdown's ** dropped."""
    return ZH(NOTICE).format(zh=zh, name=name).replace("**", "")


def test_a_chinese_prompt_runs_the_chinese_decoder_and_says_so(link):
    page = link("generation", gen_prompt=PROMPT)
    expect(page.get_by_text(shown_notice("zh_gpt", "general_gpt"))).to_be_visible(timeout=120_000)
    pieces = page.get_by_text("[BOS]", exact=False).first
    expect(pieces).to_contain_text("猫", timeout=60_000)              # the Chinese BPE keeps 猫 whole
    page.get_by_text(ZH("Keep {name} on Chinese text").format(name="general_gpt")).click()
    expect(page.get_by_text(shown_notice("zh_gpt", "general_gpt"))).to_be_hidden(timeout=120_000)
    wait_for_app(page, timeout=120_000)
    expect(page.get_by_text("[BOS]", exact=False).first).not_to_contain_text("猫")   # bytes in the English BPE


def test_english_text_keeps_the_english_model(link):
    page = link("generation", gen_prompt="The cat sat on the")
    page.get_by_text("[BOS]", exact=False).first.wait_for(timeout=120_000)
    expect(page.get_by_text(shown_notice("zh_gpt", "general_gpt"))).to_have_count(0)


def test_chinese_text_in_the_explorer_runs_the_chinese_coreference_encoder(link):
    page = link("explorer", explorer_text="小猫没有过马路，因为它太累了。")
    expect(page.get_by_text(shown_notice("zh_coref", "coref_encoder"))).to_be_visible(timeout=120_000)
    page.locator('[data-testid="stPlotlyChart"]').first.wait_for(timeout=120_000)


def test_a_chinese_fill_in_runs_the_chinese_encoder(link):
    page = link("generation", gen_tab=ZH("Fill-in (encoder)"), fill_text="我有一只[MASK]，它喜欢吃鱼。")
    expect(page.get_by_text(shown_notice("zh_encoder", "general_encoder"))).to_be_visible(timeout=120_000)
    page.locator('[data-testid="stPlotlyChart"]').first.wait_for(timeout=120_000)


def test_a_chinese_classic_in_coreference_runs_the_chinese_coreference_model(link):
    """The gallery's 小猫没有过马路，因为它太累了。 (never in zh_coref's training): the page runs zh_coref, finds 它 as
    a pronoun and says where its coreference head points it: the whole word `python -m model.coref` names."""
    text = "小猫没有过马路，因为它太累了。"
    out = subprocess.run([sys.executable, "-m", "model.coref", text, "--json"], capture_output=True, text=True,
                         check=True, timeout=300)
    (answer,) = json.loads(out.stdout)["pronouns"]
    assert answer["token"] == "它"
    page = link("coreference", coref_example=ZH("Chinese: the tired kitten"), predict="false")
    expect(page.get_by_text(shown_notice("zh_coref", "coref_encoder"))).to_be_visible(timeout=120_000)
    said = page.get_by_text(re.compile("^头 .+（指代消解头")).first
    expect(said).to_contain_text("把 它（", timeout=120_000)
    expect(said).to_contain_text(f"指向 {answer['antecedent']}（")
    page.get_by_role("tab", name=ZH("Minimal pairs")).click()               # English sentences: said, not measured
    expect(page.get_by_text(re.compile("^这个标签页度量的是英文句子"))).to_be_visible(timeout=120_000)
