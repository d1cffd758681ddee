#!/usr/bin/env bash
# Builds the image from this checkout as `npm ci` (or `npm run build`) left it, without compiling
# anything again: ops/container/stage-app.mjs copies the compiled packages and their production
# dependencies (better-sqlite3's addon as compiled here) into a folder, and the Containerfile takes
# that folder as its build context (APP=staged). The image is the one a plain
# `podman build -f ops/container/Containerfile .` makes, less the build stage's compilation.
#
#   ops/container/build.sh [TAG]            (default TAG: localhost/switchyard:latest)
#
# Environment:
#   BASE    the base image (default: the Containerfile's, node:20-bookworm-slim); `debian` builds
#           one from Debian's packages with ops/container/debian-base.sh (no registry needed)
#   FFMPEG  yes: install Debian's ffmpeg in the image (poster frames)
# The base's Node must have the ABI of the Node that built the checkout (20.x: 115), since
# better-sqlite3's addon is copied, not rebuilt. Prints the tag as its last line.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tag=${1:-localhost/switchyard:latest}

args=(--format docker --build-arg APP=staged --build-arg "FFMPEG=${FFMPEG:-no}")
base=${BASE:-}
if [ "$base" = debian ]; then base=$("$here/debian-base.sh" | tail -n 1); fi
if [ -n "$base" ]; then args+=(--build-arg "BASE=$base"); fi

context=$(mktemp -d "${TMPDIR:-/tmp}/switchyard-image.XXXXXX")
trap 'rm -rf "$context"' EXIT
node "$here/stage-app.mjs" "$context/app" >&2
podman build "${args[@]}" --network host -f "$here/Containerfile" -t "$tag" "$context" >&2
echo "$tag"
