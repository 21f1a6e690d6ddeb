# Sourced by scripts/setup.sh and scripts/setup-arm64.sh: which of a list of Debian packages are not
# installed yet.
#
# A package counts as installed only in the architecture asked for: "name:arch" names it, a bare name means
# this machine's own architecture (or "all", for architecture-independent packages). dpkg-query alone
# answers "installed" for a bare name when only a foreign build is there (libzip-dev:arm64, from
# setup-arm64.sh), and setup.sh then left the machine without the amd64 library its own build needs.

native_architecture=$(dpkg --print-architecture)

# Whether package $1 ("name" or "name:arch") is installed in that architecture.
package_installed() {
  local want
  if [[ $1 == *:* ]]; then want=${1##*:}; else want="$native_architecture|all"; fi
  dpkg-query -W -f='${Status} ${Architecture}\n' "$1" 2>/dev/null | grep -Eq "^install ok installed ($want)\$"
}

# Prints, one a line, the packages among the arguments that are not installed.
missing_packages() {
  local p
  for p in "$@"; do package_installed "$p" || echo "$p"; done
}
