"""Python values in overrides (and dict configs) reach the config as the same values: a str is written as a
quoted YAML scalar unless it reads back as itself plain, so '#' starts no comment, ': ' no map, and 'null',
'true' or '3' stay strings."""
import shutil

import pytest

import sinklab
from sinklab.training import _override_list
from conftest import SOURCE_DIR

TINY = SOURCE_DIR / "configs/examples/tiny_block.yaml"
TEXT = SOURCE_DIR / "configs/normlimits/ci_tiny.yaml"
CORPUS = SOURCE_DIR / "tests/fixtures/corpus/kjv_excerpt.txt"

NAMES = ["run #2", "a: b", "  leading spaces", 'say "hi"', "it's", "ünïcødé ✓ 😀", "null", "true", "3", "1e-3",
         "~", "yes", "[1, 2]", "{a: 1}", "&anchor", "*alias", "!tag", "%directive", "@at", "`tick", "trailing ",
         "line\u2028separator"]
# Names the run-name rule refuses: its message quotes the whole name, so all of it arrived.
REFUSED_NAMES = {"- item": "'- item'", "tab\tinside": "inside'", "next\u0085line": "line'"}
# A run of one step: the summary's name is the name the loader read.
ONE_STEP = {"train.max_steps": 1, "task.eval_samples": 8, "analysis.eval_attention_samples": 8}


@pytest.mark.parametrize("name", NAMES)
def test_a_string_override_names_the_run_with_that_very_string(name, tmp_path):
    run = sinklab.train(TINY, overrides={"name": name, **ONE_STEP}, out=tmp_path / "run", threads=1)
    assert run.summary["name"] == name


@pytest.mark.parametrize("name", REFUSED_NAMES)
def test_a_refused_name_is_quoted_whole_in_the_message(name):
    with pytest.raises(sinklab.ConfigError) as refused:
        sinklab.load_config(TINY, overrides={"name": name})
    assert REFUSED_NAMES[name] in str(refused.value)


def test_a_backslash_reaches_the_config_as_it_is():
    with pytest.raises(sinklab.ConfigError) as refused:  # a run name is one folder name: no '\'
        sinklab.load_config(TINY, overrides={"name": "back\\slash"})
    assert "'back\\slash'" in str(refused.value)


@pytest.fixture
def odd_corpus(tmp_path):
    """The text fixture under a path with every character that YAML reads specially."""
    folder = tmp_path / '  odd #1: "quoted" \\ back ünï'
    folder.mkdir()
    path = folder / "null"
    shutil.copy(CORPUS, path)
    return str(path)


def test_a_path_override_reaches_the_task_as_it_is(odd_corpus):
    assert sinklab.load_config(TEXT, overrides={"task.corpus": odd_corpus})["task"]["corpus"] == odd_corpus
    assert sinklab.task(TEXT, overrides={"task.corpus": odd_corpus}).name == "text_lm"


def test_a_dict_config_writes_its_strings_so_that_they_read_back(odd_corpus):
    config = sinklab.load_config(TEXT, overrides={"task.corpus": str(CORPUS)})
    config["task"]["corpus"] = odd_corpus
    config["name"] = "run #2\u2028: null"
    assert sinklab.task(config).name == "text_lm"


def test_an_enum_reads_quoted_and_plain_alike():
    quoted = sinklab.load_config(TINY, overrides=['model.attention.normalizer="relu"', 'model.norm="rms_norm"'])
    plain = sinklab.load_config(TINY, overrides={"model.attention.normalizer": "relu", "model.norm": "rms_norm"})
    assert quoted == plain
    assert plain["model"]["norm"] == "rms_norm"


def test_a_string_for_a_number_is_refused_with_the_loaders_type_message():
    with pytest.raises(sinklab.ConfigError, match='train.max_steps.*expected an integer, got the quoted string "3"'):
        sinklab.load_config(TINY, overrides={"train.max_steps": "3"})
    assert sinklab.load_config(TINY, overrides={"train.max_steps": 3})["train"]["max_steps"] == 3


def test_a_string_that_reads_back_plain_stays_plain_as_on_the_command_line():
    # Unquoted, the override names a run as `--set model.attention.normalizer=relu` does ("normalizer=relu").
    assert _override_list({"model.attention.normalizer": "relu", "task.corpus": "data/corpora/kjv.txt",
                           "name": "run #2"}) == ["model.attention.normalizer=relu", "task.corpus=data/corpora/kjv.txt",
                                                  'name="run #2"']


def test_a_string_with_a_lone_surrogate_is_refused_by_its_key():
    with pytest.raises(ValueError, match="name: .*lone surrogate"):
        sinklab.load_config(TINY, overrides={"name": "bad\udcff"})
