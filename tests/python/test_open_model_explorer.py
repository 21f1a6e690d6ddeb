"""The explorer page of an open model on a text (report/explorer/open_model_explorer.h) in a real browser:
`sinklab eval MODEL_DIR --text` on a copy of the tiny Llama fixture with a one-character-per-token
tokenizer.json, then `sinklab report eval-<folder>.json`; headless Chromium (driven as in
test_explorer_page.py) hovers tokens of the strip and checks their colours and weights against the
attention file read with NumPy, switches heads, and finds the colour bar and the head grid.
"""
import json
import re
import shutil

import numpy as np
import pytest

from conftest import SOURCE_DIR, run_cli
from test_explorer_page import console_errors, new_browser, open_page

LLAMA = SOURCE_DIR / "tests/fixtures/open_models/llama"
CHARS = "abcdefghijklmnopqrstuvwxyz .,"
TEXT = "the quick brown fox jumps over the lazy dog, and the dog sleeps on. " * 2
T = 32


def char_tokenizer_json():
    """A BPE tokenizer.json with one token per character: <unk> 0, <s> 1 (BOS), the characters from 2 on."""
    vocab = {"<unk>": 0, "<s>": 1, **{c: 2 + i for i, c in enumerate(CHARS)}}
    bos = {"SpecialToken": {"id": "<s>", "type_id": 0}}
    return json.dumps({
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": 1, "content": "<s>", "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True}],
        "normalizer": None, "pre_tokenizer": None,
        "post_processor": {"type": "TemplateProcessing", "single": [bos, {"Sequence": {"id": "A", "type_id": 0}}],
                           "pair": [bos, {"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
                           "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
        "decoder": None,
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "vocab": vocab, "merges": []},
    })


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    root = tmp_path_factory.mktemp("open_model_explorer")
    model = root / "llama-chars"
    shutil.copytree(LLAMA, model)
    (model / "tokenizer.json").write_text(char_tokenizer_json())
    (root / "text.txt").write_text(TEXT)
    run_cli("eval", model, "--text", root / "text.txt", "--seq-len", T, "--windows", 2, "--explore-window", 1,
            "--threads", 1, cwd=root)
    done = run_cli("report", root / "eval-llama-chars.json")
    html = root / "eval-llama-chars-report" / "explorer.html"
    assert f"explorer: {html}" in done.stdout
    eval_json = json.loads((root / "eval-llama-chars.json").read_text())
    arrays = dict(np.load(root / eval_json["explorer"]["attention_file"]))
    return html, eval_json, arrays


@pytest.fixture
def browser(tmp_path):
    driver = new_browser(tmp_path / "chromium-profile")
    yield driver
    driver.quit()


def hover(driver, element):
    from selenium.webdriver.common.action_chains import ActionChains
    ActionChains(driver).move_to_element(element).perform()


def strip_state(driver):
    """Per token of the strip: its data-weight ('' when masked) and its computed background as (r, g, b)."""
    rows = driver.execute_script("""return Array.from(document.querySelectorAll('#tokens .tok')).map(function (s) {
        return [s.dataset.weight, getComputedStyle(s).backgroundColor, s.classList.contains('masked')]; });""")
    out = []
    for weight, background, masked in rows:
        rgb = tuple(int(v) for v in re.findall(r"\d+", background)[:3])
        out.append((None if weight == "" else float(weight), rgb, masked))
    return out


def select_head(driver, layer, head):
    from selenium.webdriver.support.ui import Select
    Select(driver.find_element("id", "head-choice")).select_by_value(f"{layer},{head}")


def expect_colours_follow(state, weights):
    """Every unmasked token shows its weight, and a larger weight is never a lighter colour; masked ones none."""
    shown = [(w, rgb) for w, rgb, masked in state if not masked]
    assert len(shown) == len(weights)
    assert [w for w, _ in shown] == pytest.approx(weights.tolist(), rel=1e-6)
    darkness = [765 - sum(rgb) for _, rgb in shown]
    order = np.argsort(weights, kind="stable")
    for a, b in zip(order, order[1:]):
        if weights[b] > weights[a] + 1e-4:
            assert darkness[b] >= darkness[a], (weights[a], shown[a], weights[b], shown[b])
    heaviest, lightest = int(np.argmax(weights)), int(np.argmin(weights))
    assert darkness[heaviest] > darkness[lightest], "the colours do not tell the weights apart"
    for w, rgb, masked in state:
        if masked:
            assert w is None and rgb != shown[heaviest][1]


def test_hovering_a_token_colours_the_keys_by_the_selected_heads_row(page, browser, tmp_path):
    html, eval_json, arrays = page
    weights = arrays["weights"]
    L, H = weights.shape[:2]
    open_page(browser, html)
    assert not browser.find_element("id", "status").is_displayed()
    tokens = browser.find_elements("css selector", "#tokens .tok")
    assert len(tokens) == T
    assert tokens[0].text == "<s>" and tokens[1].text == "h"  # window 1: BOS, then the text from token 32 on ("he quick ...")
    assert [t.text for t in tokens[1:]] == [c.replace(" ", "\u2423") for c in TEXT[T:2 * T - 1]]

    bar = browser.find_element("id", "colour-bar")
    assert bar.is_displayed() and bar.size["width"] >= 200
    assert float(bar.get_attribute("data-scale")) == 1.0
    assert "attention weight" in browser.find_element("id", "colour-bar-labels").text
    assert len(browser.find_elements("css selector", "#head-grid .head-cell")) == L * H

    rows_seen = {}
    for layer, head in [(0, 1), (L - 1, H - 1)]:
        select_head(browser, layer, head)
        assert browser.find_element("id", "heatmap").get_attribute("data-head") == str(head)
        for query in (T - 1, 9):
            hover(browser, tokens[query])
            assert browser.find_element("id", "tokens").get_attribute("data-focus") == str(query)
            state = strip_state(browser)
            expect_colours_follow(state, weights[layer, head, query, :query + 1])
            assert all(masked for _, _, masked in state[query + 1:])
            rows_seen[(layer, head, query)] = [rgb for _, rgb, _ in state]
        readout = browser.find_element("id", "readout").text
        assert f"L{layer} H{head} query 9 \u00ab" in readout and "attends to" in readout
    assert rows_seen[(0, 1, T - 1)] != rows_seen[(L - 1, H - 1, T - 1)], "switching heads did not change the colours"

    # Hovering a key: the queries attending to it, coloured by their weight on it.
    browser.find_element("id", "mode-key").click()
    hover(browser, tokens[4])
    state = strip_state(browser)
    expect_colours_follow(state[4:], weights[L - 1, H - 1, 4:, 4])
    assert all(masked for _, _, masked in state[:4])

    # A head of the grid selects that head.
    browser.find_element("id", "head-0-0").click()
    assert browser.find_element("id", "heatmap").get_attribute("data-layer") == "0"
    assert browser.find_element("id", "head-choice").get_attribute("value") == "0,0"
    browser.save_screenshot(str(tmp_path / "open_model_explorer.png"))
    assert console_errors(browser) == []


def test_the_head_grid_shows_each_heads_alpha0_from_the_eval_json(page, browser):
    html, eval_json, arrays = page
    open_page(browser, html)
    heads = eval_json["unablated"]["extreme_tokens"]["eval"]["heads"]
    for h in heads:
        cell = browser.find_element("id", f"head-{h['layer']}-{h['head']}")
        assert float(cell.get_attribute("data-alpha0")) == pytest.approx(h["alpha"][0], rel=1e-12)
        assert f"\u03b1\u2080 {h['alpha'][0]:.2f}" in cell.text
    # The page opens on the head with the largest alpha_0.
    top = max(heads, key=lambda h: h["alpha"][0])
    assert browser.find_element("id", "head-choice").get_attribute("value") == f"{top['layer']},{top['head']}"


def test_a_truncated_data_file_is_a_message_in_the_page(page, browser, tmp_path):
    html = page[0]
    copy = tmp_path / "copy"
    shutil.copytree(html.parent, copy)
    data = copy / "explorer-data.js"
    data.write_text(data.read_text()[: data.stat().st_size // 2])
    browser.get((copy / "explorer.html").as_uri())
    status = browser.find_element("id", "status")
    assert status.is_displayed() and "sinklab report" in status.text
