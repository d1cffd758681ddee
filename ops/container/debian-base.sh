#!/usr/bin/env bash
# Makes a Node 20 base image from Debian's packages alone, for machines that reach Debian's
# package sources but no container registry (this project's test machines and CI):
#
#   debootstrap --variant=minbase --include=nodejs,ca-certificates trixie DIR
#   tar -C DIR -c . | podman import - localhost/switchyard-base:…
#
# Debian 13 (trixie) ships Node.js 20.19, the same ABI (115) as the Node 20 that builds the
# checkout, so a better-sqlite3 compiled there loads in the image. The tag carries a hash of the
# suite, the packages, the mirror and this script, and an image with that tag is reused, not
# rebuilt. Prints the tag as its last line; the image is then used as
#   podman build --build-arg BASE=<tag> …
#
# Environment: SUITE (trixie), PACKAGES (nodejs,ca-certificates), MIRROR (Debian's default),
# BASE_NAME (localhost/switchyard-base). Needs root, debootstrap and podman.
set -euo pipefail

SUITE=${SUITE:-trixie}
PACKAGES=${PACKAGES:-nodejs,ca-certificates}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
BASE_NAME=${BASE_NAME:-localhost/switchyard-base}

hash=$( (printf '%s\n' "$SUITE" "$PACKAGES" "$MIRROR"; cat "$0") | sha256sum | cut -c1-12)
tag="$BASE_NAME:$SUITE-$hash"

if podman image exists "$tag"; then
  echo "debian-base: $tag exists, reused" >&2
  echo "$tag"
  exit 0
fi

for tool in debootstrap podman; do
  command -v "$tool" >/dev/null || { echo "debian-base: $tool is not installed" >&2; exit 1; }
done

root=$(mktemp -d "${TMPDIR:-/tmp}/switchyard-base.XXXXXX")
trap 'rm -rf "$root"' EXIT
echo "debian-base: debootstrap $SUITE with $PACKAGES into $root" >&2
debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$root" "$MIRROR" >&2
# What a registry's slim image leaves out too: package lists, caches, documentation.
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
  "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/var/log/*.log
tar -C "$root" -c . | podman import \
  --change 'CMD ["node"]' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --message "Node.js from Debian $SUITE ($PACKAGES)" \
  - "$tag" >&2
echo "$tag"
