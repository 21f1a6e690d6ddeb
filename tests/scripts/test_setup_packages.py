"""scripts/setup.sh and scripts/debian_packages.sh against a fake dpkg: a package counts as installed only
in the architecture asked for, so a foreign build (libzip-dev:arm64, from setup-arm64.sh) does not stop
setup.sh from installing the machine's own."""
import os
import pathlib
import subprocess
import sys

SCRIPTS = pathlib.Path(__file__).resolve().parents[2] / "scripts"

FAKE_DPKG_QUERY = f"""#!{sys.executable}
# dpkg-query -W -f=FORMAT NAME[:ARCH], answering from $FAKE_DPKG_DB ("name arch" lines); a name not in it is
# installed for amd64 when $FAKE_DPKG_REST_INSTALLED is set.
import os, sys
name = sys.argv[-1]
installed = {{}}
for line in open(os.environ["FAKE_DPKG_DB"]):
    if line.strip():
        package, arch = line.split()
        installed.setdefault(package, []).append(arch)
package, _, arch = name.partition(":")
arches = installed.get(package, ["amd64"] if os.environ.get("FAKE_DPKG_REST_INSTALLED") else [])
arches = [a for a in arches if not arch or a == arch]
if not arches:
    sys.exit(f"dpkg-query: no packages found matching {{name}}")
for a in arches:
    print(f"install ok installed {{a}}")
"""

FAKE_DPKG = """#!/bin/sh
case "$1" in
  --print-architecture) echo amd64 ;;
  --print-foreign-architectures) echo arm64 ;;
  *) echo "fake dpkg: $*" >&2; exit 2 ;;
esac
"""

FAKE_APT_GET = """#!/bin/sh
echo "$*" >> "$FAKE_APT_LOG"
"""

FAKE_SUDO = """#!/bin/sh
exec "$@"
"""


def fake_system(tmp_path, installed, rest_installed):
    """An environment whose dpkg-query knows INSTALLED ("name arch" pairs) and whose apt-get only logs."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in [("dpkg-query", FAKE_DPKG_QUERY), ("dpkg", FAKE_DPKG), ("apt-get", FAKE_APT_GET),
                       ("sudo", FAKE_SUDO)]:
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    (tmp_path / "db").write_text("".join(f"{name} {arch}\n" for name, arch in installed))
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", FAKE_DPKG_DB=str(tmp_path / "db"),
               FAKE_APT_LOG=str(tmp_path / "apt.log"))
    env.pop("SINKLAB_WITH_TORCH", None)
    if rest_installed:
        env["FAKE_DPKG_REST_INSTALLED"] = "1"
    return env


def apt_calls(tmp_path):
    log = tmp_path / "apt.log"
    return log.read_text().splitlines() if log.exists() else []


def test_a_package_installed_only_for_another_architecture_is_missing(tmp_path):
    env = fake_system(tmp_path, [("libzip-dev", "arm64"), ("nlohmann-json3-dev", "all"), ("cmake", "amd64"),
                                 ("libgtest-dev", "amd64"), ("libgtest-dev", "arm64"), ("libdnnl2", "arm64")],
                      rest_installed=False)
    asked = ["libzip-dev", "nlohmann-json3-dev", "cmake", "libgtest-dev", "libgtest-dev:arm64", "libzip-dev:arm64",
             "libdnnl2:arm64", "libdnnl-dev:arm64", "libdnnl2", "absent"]
    done = subprocess.run(["bash", "-c", f'source {SCRIPTS}/debian_packages.sh && missing_packages "$@"', "-",
                           *asked], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["libzip-dev", "libdnnl-dev:arm64", "libdnnl2", "absent"]


def test_setup_installs_the_native_package_beside_a_foreign_one(tmp_path):
    env = fake_system(tmp_path, [("libzip-dev", "arm64"), ("libxxhash-dev", "arm64")], rest_installed=True)
    done = subprocess.run([str(SCRIPTS / "setup.sh")], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "setup: installing libzip-dev libxxhash-dev\n"
    installs = [call for call in apt_calls(tmp_path) if call.split()[0] == "install"]
    assert len(installs) == 1
    assert installs[0].split()[-2:] == ["libzip-dev", "libxxhash-dev"]


def test_setup_touches_nothing_when_everything_is_installed(tmp_path):
    env = fake_system(tmp_path, [], rest_installed=True)
    done = subprocess.run([str(SCRIPTS / "setup.sh")], env=env, capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert apt_calls(tmp_path) == []
