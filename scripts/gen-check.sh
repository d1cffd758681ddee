#!/usr/bin/env bash
# Fails when the committed generated code differs from a fresh `buf generate`.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf service/src/gen proto/src/gen
npx buf generate
if ! git diff --quiet --exit-code -- service/src/gen proto/src/gen || [ -n "$(git ls-files --others --exclude-standard service/src/gen proto/src/gen)" ]; then
  echo "generated code is stale: run 'npm run gen' and commit the result" >&2
  git --no-pager diff --stat -- service/src/gen proto/src/gen >&2
  exit 1
fi
echo "generated code is up to date"
