#!/usr/bin/env bash
# Checks every workspace package as it would be published: publint (manifest,
# exports, files) and Are the Types Wrong (types resolve for ESM consumers;
# the packages are ESM-only, so CommonJS and node10 resolution are not asked).
set -uo pipefail
cd "$(dirname "$0")/.."
BIN="$PWD/node_modules/.bin"
status=0
for dir in $(node -p "require('./package.json').workspaces.join(' ')"); do
  name=$(node -p "require('./$dir/package.json').name")
  if ! out=$("$BIN/publint" --strict "$dir" 2>&1); then echo "$out"; status=1; fi
  if ! out=$(cd "$dir" && "$BIN/attw" --pack . --profile esm-only --format table-flipped 2>&1); then echo "$out"; status=1; fi
  [ "$status" = 0 ] && echo "$name: publint and attw pass"
done
exit "$status"
