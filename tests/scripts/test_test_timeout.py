"""scripts/test.sh's TEST_TIMEOUT: a value ctest would take silently as no limit ("abc", "0") stops the
script before it installs or builds anything, with a message naming the variable and the value."""
import os
import pathlib
import shutil
import subprocess

import pytest

SCRIPTS = pathlib.Path(__file__).resolve().parents[2] / "scripts"

# Stands in for scripts/setup.sh in a copy of the tree: the first thing test.sh runs after its checks.
FAKE_SETUP = """#!/bin/sh
touch "$(dirname "$0")/../setup-ran"
exit 1
"""


def run_test_sh(tmp_path, timeout):
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    shutil.copy(SCRIPTS / "test.sh", scripts / "test.sh")
    (scripts / "setup.sh").write_text(FAKE_SETUP)
    (scripts / "setup.sh").chmod(0o755)
    env = dict(os.environ, TEST_TIMEOUT=timeout)
    return subprocess.run(["bash", str(scripts / "test.sh")], env=env, capture_output=True, text=True)


@pytest.mark.parametrize("timeout", ["abc", "0", "-5", "90s"])
def test_a_bad_timeout_stops_before_setup(tmp_path, timeout):
    result = run_test_sh(tmp_path, timeout)
    assert result.returncode == 2, result.stderr
    assert f"TEST_TIMEOUT must be a whole number of seconds above 0, not '{timeout}'" in result.stderr
    assert not (tmp_path / "setup-ran").exists()


def test_a_good_timeout_goes_on_to_setup(tmp_path):
    result = run_test_sh(tmp_path, "7200")
    assert (tmp_path / "setup-ran").exists(), result.stderr
    assert result.returncode == 1
