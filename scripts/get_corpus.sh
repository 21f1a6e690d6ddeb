#!/usr/bin/env bash
# Writes the King James Bible (public domain, Debian packages bible-kjv + bible-kjv-text) as plain
# text to data/corpora/kjv.txt, one verse per line without its reference, and checks its SHA-256 so
# every machine trains on the same bytes. Exit 2 when the text differs from the recorded one.
# Idempotent: an existing file with the right checksum is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
expected=b5c4940bcfeee072c0935b5200d0f9d88a00a0199cb0961d16133458fcdfae5d
out=data/corpora/kjv.txt

if [[ -f $out ]] && [[ $(sha256sum "$out" | cut -d' ' -f1) == "$expected" ]]; then
  [[ -O $out ]] && chmod 0644 "$out"  # a file an earlier version of this script wrote 0600
  exit 0
fi

if ! command -v bible >/dev/null || ! dpkg-query -W -f='${Status}' bible-kjv-text 2>/dev/null | grep -q "install ok installed"; then
  sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
  echo "get_corpus: installing bible-kjv bible-kjv-text"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends bible-kjv bible-kjv-text >/dev/null
fi

mkdir -p data/corpora
tmp=$(mktemp data/corpora/.kjv.XXXXXX)
trap 'rm -f "$tmp"' EXIT
# Genesis 1:1 to Revelation 22:21, one verse per line; sed drops the "Gen1:1 " reference.
bible -f -p /usr/lib gen1:1-rev22:21 | sed 's/^[^ ]* //' >"$tmp"
actual=$(sha256sum "$tmp" | cut -d' ' -f1)
if [[ $actual != "$expected" ]]; then
  echo "get_corpus: $out would have sha256 $actual, expected $expected (another bible-kjv-text version?); not written" >&2
  exit 2
fi
# mktemp creates its file 0600; the corpus is an ordinary data file, readable like the checkout's others
# whatever the umask (a sweep's other users and ranks read it).
chmod 0644 "$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "get_corpus: wrote $out ($(wc -c <"$out") bytes, sha256 ok)"
