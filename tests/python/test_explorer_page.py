"""The sink explorer page (report/explorer/explorer_page.h) in a real browser: headless Chromium driven by
Selenium loads the page `sinklab report` writes, moves the step slider, hovers cells and checks what the
page shows against the snapshot file read with NumPy; broken snapshot and data files give a message.

Needs Debian's chromium, chromium-driver and python3-selenium (scripts/setup.sh installs them): without them
the tests fail, saying what is missing, unless SINKLAB_SKIP_BROWSER=1 asks to skip them.
The first paint is timed by bench/explorer_first_paint.py, not here.
"""
import json
import os
import pathlib
import re
import shutil
import sys

import numpy as np
import pytest

from conftest import run_cli

CHROMEDRIVER = pathlib.Path("/usr/bin/chromedriver")
CHROME_FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1300,1000"]
ROLE_SINK_KEY, ROLE_NO_OP_ROW, ROLE_ACTIVE_ROW = 1, 2, 4


# ---- Run folders with a snapshot file, as training writes it (attention_snapshots.npz). ----

def write_snapshots(run_dir, steps, layers, heads, seq_len, rows=None, seed=0, mean_dtype=np.float32, example_dtype=np.float16,
                    tokens=None):
    """Random causal row-normalized maps per step; returns the arrays written."""
    rng = np.random.default_rng(seed)
    rows = np.arange(seq_len, dtype=np.int32) if rows is None else np.asarray(rows, dtype=np.int32)
    shape = (len(steps), layers, heads, len(rows), len(rows))
    mean = rng.random(shape, dtype=np.float32) * (rows[None, :] <= rows[:, None])
    mean = (mean / mean.sum(-1, keepdims=True)).astype(mean_dtype)
    example = (rng.random(shape, dtype=np.float32) * (rows[None, :] <= rows[:, None])).astype(example_dtype)
    roles = np.full(seq_len, ROLE_NO_OP_ROW, np.uint8)
    roles[0] = ROLE_SINK_KEY
    roles[seq_len // 2 - 1] = ROLE_ACTIVE_ROW
    arrays = dict(steps=np.asarray(steps, np.int64), mean=mean, example=example, rows=rows, cols=rows.copy(),
                  roles=roles, seq_len=np.int64(seq_len))
    if tokens is not None:
        arrays["tokens"] = np.asarray(tokens, np.int32)
    np.savez(run_dir / "attention_snapshots.npz", **arrays)
    return arrays


def snapshot_positions(seq_len):
    """The stored rows of a snapshot file (stats/attention_snapshots.h): every position up to T = 128, else
    the first and last 16 and the middle pooled into 96 bins."""
    if seq_len <= 128:
        return list(range(seq_len))
    return list(range(16)) + [16 + b * (seq_len - 32) // 96 for b in range(96)] + list(range(seq_len - 16, seq_len))


def copy_run(source, target, seed=None):
    shutil.copytree(source, target)
    shutil.rmtree(target / "report", ignore_errors=True)
    if seed is not None:  # a sweep's manifest and the run's summary must agree on the seed
        summary = json.loads((target / "summary.json").read_text())
        summary["seed"] = seed
        (target / "summary.json").write_text(json.dumps(summary))
    return target


def report(run_or_sweep):
    done = run_cli("report", run_or_sweep, "--no-render")
    assert f"explorer: {run_or_sweep / 'report' / 'explorer.html'}" in done.stdout
    return done


def summary_of(run_dir):
    return json.loads((run_dir / "summary.json").read_text())


@pytest.fixture(scope="module")
def snapshot_run(tiny_run, tmp_path_factory):
    run = copy_run(tiny_run, tmp_path_factory.mktemp("explorer") / "run")
    s = summary_of(run)
    arrays = write_snapshots(run, [10, 20, 30, 40], s["layers"], s["heads_per_layer"], s["seq_len"])
    report(run)
    return run, arrays


@pytest.fixture(scope="module")
def snapshot_sweep(tiny_run, tmp_path_factory):
    """Two variants x two seeds, each run with its own snapshot maps."""
    sweep = tmp_path_factory.mktemp("explorer") / "sweep"
    entries, arrays = [], {}
    for v, variant in enumerate(["softmax", "relu"]):
        for seed in (0, 1):
            run_id = f"{variant}_s{seed}"
            run = copy_run(tiny_run, sweep / "runs" / run_id, seed=seed)
            s = summary_of(run)
            arrays[run_id] = write_snapshots(run, [10, 20, 40], s["layers"], s["heads_per_layer"], s["seq_len"],
                                             seed=10 * v + seed)
            entries.append({"id": run_id, "variant": variant, "seed": seed, "dir": f"runs/{run_id}"})
    (sweep / "sweep.json").write_text(json.dumps({"name": "explorer_test", "runs": entries}))
    report(sweep)
    return sweep, arrays


# ---- The browser. ----

def missing_browser(why):
    if os.environ.get("SINKLAB_SKIP_BROWSER") == "1":
        pytest.skip(why)
    pytest.fail(why + "; scripts/setup.sh installs it (or set SINKLAB_SKIP_BROWSER=1 to skip these tests)")


def new_browser(profile_dir):
    try:
        from selenium import webdriver
    except ImportError:
        missing_browser("the explorer's browser test needs python3-selenium")
    if not CHROMEDRIVER.exists() or shutil.which("chromium") is None:
        missing_browser("the explorer's browser test needs Debian's chromium and chromium-driver")
    options = webdriver.ChromeOptions()
    for flag in CHROME_FLAGS:
        options.add_argument(flag)
    options.add_argument("--user-data-dir=" + str(profile_dir))
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    from selenium.webdriver.chrome.service import Service
    return webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)


@pytest.fixture
def browser(tmp_path):
    driver = new_browser(tmp_path / "chromium-profile")
    yield driver
    driver.quit()


def wait_for(driver, condition, what, timeout=20):
    from selenium.webdriver.support.ui import WebDriverWait
    try:
        return WebDriverWait(driver, timeout).until(lambda d: condition(d))
    except Exception as e:
        status = driver.execute_script("var s = document.getElementById('status'); return s ? s.textContent : ''")
        raise AssertionError(f"timed out waiting for {what}; page status: {status!r}") from e


def open_page(driver, page):
    driver.get(page.as_uri())
    wait_for(driver, lambda d: d.execute_script("return document.body.dataset.ready === 'true'"), "the page to start")


def shown_step(driver, element_id):
    return driver.execute_script(f"return document.getElementById('{element_id}').dataset.shownStep")


def canvas_pixels(driver, element_id):
    return driver.execute_script(f"return document.getElementById('{element_id}').toDataURL()")


def hover_cell(driver, canvas, row, col, rows, cols):
    """Moves the mouse to the centre of cell (row, col) of a canvas drawn with rows x cols cells."""
    from selenium.webdriver.common.action_chains import ActionChains
    rect = driver.execute_script("var r = arguments[0].getBoundingClientRect(); return [r.width, r.height];", canvas)
    x = (col + 0.5) * rect[0] / cols - rect[0] / 2
    y = (row + 0.5) * rect[1] / rows - rect[1] / 2
    ActionChains(driver).move_to_element_with_offset(canvas, round(x), round(y)).perform()


def readout(driver, element_id="readout"):
    return driver.execute_script(f"var r = document.getElementById('{element_id}'); return [r.textContent, Object.assign({{}}, r.dataset)]")


def console_errors(driver):
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


# ---- Tests. ----

def test_run_page_shows_the_snapshot_weights_as_the_slider_moves(snapshot_run, browser, tmp_path):
    from selenium.webdriver.common.keys import Keys
    run, arrays = snapshot_run
    steps, mean, example = arrays["steps"], arrays["mean"], arrays["example"]
    S, L, H, R, C = mean.shape
    open_page(browser, run / "report" / "explorer.html")
    assert not browser.find_element("id", "status").is_displayed()
    assert len(browser.find_elements("css selector", "canvas.heatmap")) == L * H
    wait_for(browser, lambda d: shown_step(d, "grid") == str(steps[-1]), "the last step's maps")
    layer, head = L - 1, H - 1
    map_before, curves_before = canvas_pixels(browser, f"map-{layer}-{head}"), canvas_pixels(browser, f"curves-{layer}-{head}")

    slider = browser.find_element("id", "step-slider")
    slider.send_keys(Keys.HOME)
    wait_for(browser, lambda d: shown_step(d, "grid") == str(steps[0]), "the first step's maps")
    assert canvas_pixels(browser, f"map-{layer}-{head}") != map_before, "the heatmap did not change with the step"
    assert canvas_pixels(browser, f"curves-{layer}-{head}") != curves_before, "the curve cursor did not move"
    assert browser.find_element("id", f"curves-{layer}-{head}").get_attribute("data-cursor-step") == str(steps[0])
    assert browser.find_element("id", "step-label").text.startswith(f"step {steps[0]} ")

    active = int(np.flatnonzero(arrays["roles"] == ROLE_ACTIVE_ROW)[0])
    canvas = browser.find_element("id", f"map-{layer}-{head}")
    for index, (row, col) in [(0, (active, 0)), (0, (R - 1, 3)), (1, (R - 2, R - 5))]:
        if index > 0:
            slider.send_keys(Keys.RIGHT)
            wait_for(browser, lambda d: shown_step(d, "grid") == str(steps[index]), f"step {steps[index]}")
        hover_cell(browser, canvas, row, col, R, C)
        text, data = readout(browser)
        assert (data["stepIndex"], data["layer"], data["head"]) == (str(index), str(layer), str(head))
        assert (data["rowIndex"], data["colIndex"]) == (str(row), str(col)), text
        assert float(data["weight"]) == float(mean[index, layer, head, row, col]), text
        assert f"query row {row} " in text and f"key col {col} " in text
        shown = float(re.search(r"weight (\S+)", text).group(1))  # six significant digits
        assert shown == pytest.approx(float(mean[index, layer, head, row, col]), rel=1e-5), text
    hover_cell(browser, canvas, active, 0, R, C)
    assert "(active row)" in readout(browser)[0] and "(sink key)" in readout(browser)[0]

    browser.find_element("id", "kind-example").click()
    wait_for(browser, lambda d: d.execute_script("return document.getElementById('grid').dataset.shownKind") == "example",
             "the example maps")
    hover_cell(browser, canvas, R - 1, 2, R, C)
    assert float(readout(browser)[1]["weight"]) == float(example[1, layer, head, R - 1, 2].astype(np.float32))

    canvas.click()  # enlarge: the big map has its own readout
    big = browser.find_element("id", "enlarged-map")
    hover_cell(browser, big, 5, 4, R, C)
    assert float(readout(browser, "enlarged-readout")[1]["weight"]) == float(example[1, layer, head, 5, 4].astype(np.float32))

    browser.save_screenshot(str(tmp_path / "explorer_run.png"))
    assert (tmp_path / "explorer_run.png").stat().st_size > 0
    assert console_errors(browser) == []


def test_play_steps_through_every_snapshot(snapshot_run, browser):
    run, arrays = snapshot_run
    open_page(browser, run / "report" / "explorer.html")
    wait_for(browser, lambda d: shown_step(d, "grid") == str(arrays["steps"][-1]), "the last step's maps")
    browser.execute_script("""var grid = document.getElementById('grid'); window.shownSteps = [];
        new MutationObserver(function () { window.shownSteps.push(Number(grid.dataset.shownStep)); })
            .observe(grid, {attributes: true, attributeFilter: ['data-shown-step']});""")
    browser.find_element("id", "play").click()  # from the last step, play starts over at the first
    assert browser.find_element("id", "play").text == "pause"
    wait_for(browser, lambda d: d.find_element("id", "play").text == "play", "play to stop at the end")
    assert browser.execute_script("return window.shownSteps") == arrays["steps"].tolist()
    assert console_errors(browser) == []


@pytest.mark.parametrize("damage", ["truncated", "not_a_zip", "wrong_shape"])
def test_a_broken_snapshot_file_is_a_message_in_the_page(snapshot_run, tmp_path, browser, damage):
    run = copy_run(snapshot_run[0], tmp_path / "run")
    path = run / "attention_snapshots.npz"
    if damage == "truncated":
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    elif damage == "not_a_zip":
        path.write_bytes(b"this is not an archive" * 10)
    else:
        arrays = dict(np.load(path))
        arrays["mean"] = arrays["mean"][:, :, :, :-1]
        np.savez(path, **arrays)
    done = report(run)
    assert "attention_snapshots.npz" in done.stderr
    open_page(browser, run / "report" / "explorer.html")
    message = browser.find_element("id", "maps-error")
    assert message.is_displayed()
    assert "cannot be read" in message.text and str(path) in message.text
    if damage == "wrong_shape":
        assert "'mean' has shape" in message.text
    # The final maps (attention/*.npy) still show, as one step.
    wait_for(browser, lambda d: shown_step(d, "grid") == str(summary_of(run)["steps"]), "the final maps")


def test_a_run_without_any_maps_says_so(snapshot_run, tmp_path, browser):
    run = copy_run(snapshot_run[0], tmp_path / "run")
    (run / "attention_snapshots.npz").unlink()
    shutil.rmtree(run / "attention")
    report(run)
    open_page(browser, run / "report" / "explorer.html")
    assert "no attention maps to show" in browser.find_element("id", "no-maps").text
    assert console_errors(browser) == []


def test_curves_break_at_a_step_without_heads_and_are_left_out_when_they_do_not_match_the_maps(snapshot_run, tmp_path, browser):
    run = copy_run(snapshot_run[0], tmp_path / "run")
    lines = (run / "metrics.jsonl").read_text().splitlines()
    last = json.loads(lines[-1])
    last.update(step=last["step"] + 5, heads=[])  # what a diverged step logs
    (run / "metrics.jsonl").write_text("\n".join(lines + [json.dumps(last)]) + "\n")
    report(run)
    open_page(browser, run / "report" / "explorer.html")
    assert browser.find_elements("id", "curves-0-0")
    assert console_errors(browser) == []

    s = summary_of(run)
    write_snapshots(run, [10, 20], 1, 1, s["seq_len"])  # one head drawn, eight logged
    report(run)
    open_page(browser, run / "report" / "explorer.html")
    assert not browser.find_elements("id", "curves-0-0")
    assert f"logs {s['layers'] * s['heads_per_layer']} heads, the attention maps have 1: curves not drawn" in \
        browser.find_element("id", "app").text
    assert console_errors(browser) == []


@pytest.mark.parametrize("damaged_file", ["explorer-data.js", "explorer-maps/mean-3.js", "explorer-maps/mean-2.js"])
def test_a_truncated_page_file_is_a_message_not_a_blank_page(snapshot_run, tmp_path, browser, damaged_file):
    page_dir = shutil.copytree(snapshot_run[0] / "report", tmp_path / "report")
    path = page_dir / damaged_file
    if damaged_file.endswith("mean-2.js"):
        path.unlink()
    else:
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    browser.get((page_dir / "explorer.html").as_uri())
    status = browser.find_element("id", "status")
    expected = "explorer-data.js" if damaged_file == "explorer-data.js" else damaged_file
    if damaged_file.endswith("mean-2.js"):  # a step is loaded when shown: move the slider there
        from selenium.webdriver.common.keys import Keys
        browser.find_element("id", "step-slider").send_keys(Keys.LEFT)
    wait_for(browser, lambda d: status.is_displayed() and status.get_attribute("class") == "problem" and expected in status.text,
             f"a message naming {expected}")


# ---- Token labels. ----

DATA_PREFIX = "window.SINKLAB_EXPLORER = "


def give_token_labels(page_dir, labels):
    """Puts token labels into a written page's data, as explorer_maps_data (report/explorer/explorer_page.h)
    writes them for maps that carry labels: the text made visible (report/explorer/token_label_text.h,
    tested in tests/report/token_label_text_test.cpp and explorer_maps_data_test.cpp)."""
    path = page_dir / "explorer-data.js"
    text = path.read_text()
    assert text.startswith(DATA_PREFIX) and text.endswith(";\n")
    data = json.loads(text[len(DATA_PREFIX):-2])
    data["run"]["maps"]["token_labels"] = labels
    path.write_text(DATA_PREFIX + json.dumps(data).replace("</", "<\\/") + ";\n")


@pytest.fixture(scope="module")
def labelled_run(tiny_run, tmp_path_factory):
    """A token run with T = 1024: the snapshot file keeps 128 rows, the middle ones pooled; every position
    has a label, among them a space, a newline, markup and a stray byte."""
    run = copy_run(tiny_run, tmp_path_factory.mktemp("explorer") / "labelled")
    s = summary_of(run)
    seq_len = 1024
    text = ("In the beginning God created the heaven and the earth.\n" * 20)[:seq_len]
    labels = [{" ": "\u2423", "\n": "\u23ce"}.get(ch, ch) for ch in text]
    labels[2], labels[5], labels[7] = "<b>x</b>", "\\xC3", "a longer label"
    arrays = write_snapshots(run, [10, 20], s["layers"], s["heads_per_layer"], seq_len, rows=snapshot_positions(seq_len),
                             tokens=[ord(ch) for ch in text])
    report(run)
    give_token_labels(run / "report", labels)
    return run, arrays, labels


def test_the_readout_and_the_enlarged_axes_show_token_labels(labelled_run, browser):
    run, arrays, labels = labelled_run
    rows = arrays["rows"].tolist()
    R = len(rows)
    open_page(browser, run / "report" / "explorer.html")
    wait_for(browser, lambda d: shown_step(d, "grid") == "20", "the last step's maps")
    canvas = browser.find_element("id", "map-0-0")

    hover_cell(browser, canvas, 20, 5, R, R)  # a middle row: stands for positions rows[i] .. rows[i + 1] - 1
    text, data = readout(browser)
    pooled = int(data["rowIndex"])  # 128 rows on 200 pixels: the mouse lands on row 20 or a neighbour
    assert 19 <= pooled <= 21 and data["colIndex"] == "5", text
    assert data["rowToken"] == labels[rows[pooled]] + "\u2026" and data["colToken"] == "\\xC3", text
    assert f"query row {rows[pooled]}\u2013{rows[pooled + 1] - 1} \u00ab{labels[rows[pooled]]}\u2026\u00bb" in text
    assert float(data["weight"]) == float(arrays["mean"][1, 0, 0, pooled, 5])

    canvas.click()
    axes = browser.find_element("id", "enlarged-axes")
    pixels = int(axes.get_attribute("data-cell-pixels"))
    for axis in ("row", "col"):
        shown = json.loads(axes.get_attribute(f"data-{axis}-labels"))
        indices = [i for i, _ in shown]
        assert indices[0] == 0 and len(indices) < R, "128 rows at a few pixels each: the labels are thinned"
        assert min(b - a for a, b in zip(indices, indices[1:])) * pixels >= 12, "neighbouring labels overlap"
        for i, label in shown:
            expected = labels[rows[i]] + ("\u2026" if rows[i + 1 if i + 1 < R else i] - rows[i] > 1 else "")
            assert label == (expected if len(expected) <= 8 else expected[:7] + "\u2026"), (i, label)
        assert [0, labels[0]] in shown and any(label.endswith("\u2026") for _, label in shown)
    big = browser.find_element("id", "enlarged-map")  # 4 pixels a cell: the mouse hits the cell it aims at
    hover_cell(browser, big, 2, 6, R, R)  # positions 2 and 6 are stored alone
    text, data = readout(browser, "enlarged-readout")
    assert (data["rowIndex"], data["colIndex"]) == ("2", "6"), text
    assert (data["rowToken"], data["colToken"]) == ("<b>x</b>", "\u2423"), text
    assert "query row 2 \u00ab<b>x</b>\u00bb" in text and "key col 6 \u00ab\u2423\u00bb" in text
    assert browser.execute_script("return document.getElementById('enlarged-readout').children.length") == 0, "a label became HTML"
    hover_cell(browser, big, 7, 0, R, R)
    assert readout(browser, "enlarged-readout")[1]["rowToken"] == "a longer label"
    assert console_errors(browser) == []


def test_sweep_page_shows_one_head_of_every_run_and_links_their_pages(snapshot_sweep, browser, tmp_path):
    from selenium.webdriver.common.keys import Keys
    sweep, arrays = snapshot_sweep
    page = sweep / "report" / "explorer.html"
    open_page(browser, page)
    assert [e.text for e in browser.find_elements("css selector", ".variant h2")] == ["softmax", "relu"]
    wait_for(browser, lambda d: shown_step(d, "sweep") == "40", "every run's last maps")
    for run_id in arrays:
        browser.find_element("css selector", f"a[href='explorer-runs/{run_id}/explorer.html']")
        assert (page.parent / "explorer-runs" / run_id / "explorer.html").exists()
    browser.find_element("id", "step-slider").send_keys(Keys.HOME)
    wait_for(browser, lambda d: shown_step(d, "sweep") == "10", "every run's first maps")
    head_choice = browser.find_element("id", "head-choice")
    head_choice.find_elements("tag name", "option")[5].click()  # layer 1 head 1 of a 2 x 4 model
    wait_for(browser, lambda d: shown_step(d, "sweep") == "10", "the chosen head")
    mean = arrays["relu_s1"]["mean"]
    R = mean.shape[3]
    hover_cell(browser, browser.find_element("id", "map-relu_s1"), R - 1, 1, R, R)
    text, data = readout(browser)
    assert data["runId"] == "relu_s1" and (data["layer"], data["head"]) == ("1", "1")
    assert float(data["weight"]) == float(mean[0, 1, 1, R - 1, 1]), text
    browser.save_screenshot(str(tmp_path / "explorer_sweep.png"))
    assert console_errors(browser) == []

    browser.get((sweep / "report" / "explorer-runs" / "relu_s1" / "explorer.html").as_uri())
    wait_for(browser, lambda d: shown_step(d, "grid") == "40", "the run page opened from the sweep")
    assert console_errors(browser) == []


@pytest.mark.parametrize("zoo", [False, True])
def test_each_variant_in_the_tables_links_its_run_page(snapshot_sweep, tmp_path, browser, zoo):
    sweep, _ = snapshot_sweep
    if zoo:  # the same runs with sink classes: the zoo table leads
        sweep = shutil.copytree(sweep, tmp_path / "zoo", ignore=shutil.ignore_patterns("report"))
        manifest = json.loads((sweep / "sweep.json").read_text())
        for entry in manifest["runs"]:
            entry["class"] = "S" if entry["variant"] == "softmax" else "Z"
        (sweep / "sweep.json").write_text(json.dumps(manifest))
        report(sweep)
    report_dir = sweep / "report"
    # Seed 0 stands for its variant.
    expected = {variant: f"explorer-runs/{variant}_s0/explorer.html" for variant in ("softmax", "relu")}

    open_page(browser, report_dir / "explorer.html")
    table = browser.find_element("id", "table-0")
    title = browser.execute_script("return arguments[0].closest('.tables').querySelector('h2').textContent", table)
    assert ("Zoo comparison" in title) == zoo, title
    links = browser.execute_script("""return Array.from(arguments[0].querySelectorAll('td:first-child a'))
        .map(function (a) { return [a.textContent, a.getAttribute('href')]; })""", table)
    assert dict(links) == expected and len(links) == 2
    for href in expected.values():
        assert (report_dir / href).is_file()
    table.find_element("link text", "relu").click()
    wait_for(browser, lambda d: d.execute_script("return document.body.dataset.ready === 'true'"), "the run page")
    assert browser.title == "Sink explorer: relu_s0"
    assert console_errors(browser) == []

    # index.html: the variant rows of its tables (zoo table, per-variant and per-head tables) link the same pages.
    html = (report_dir / "index.html").read_text()
    for variant, href in expected.items():
        assert f'<td><a href="{href}">{variant}</a></td>' in html
    assert '<a href="explorer.html">the sink explorer</a>' in html
    browser.get((report_dir / "index.html").as_uri())
    browser.find_element("link text", "softmax").click()
    wait_for(browser, lambda d: d.execute_script("return document.body.dataset.ready === 'true'"), "the run page from index.html")
    assert browser.title == "Sink explorer: softmax_s0"
