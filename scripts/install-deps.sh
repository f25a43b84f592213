#!/usr/bin/env bash
# Installs the system packages the build needs (Debian/Ubuntu), only if they are missing.
# Usage: scripts/install-deps.sh [extra-package ...]
set -euo pipefail

packages=(libmicrohttpd-dev libsqlite3-dev libpq-dev pkg-config "$@")
missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null; then
        echo "install-deps.sh: ${missing[*]} missing, and installing needs root: run this as root, or install sudo" >&2
        exit 2
    fi
    sudo="sudo"
fi
echo "Installing: ${missing[*]}" >&2
$sudo apt-get update -qq
# Through env: sudo's env_reset would drop a DEBIAN_FRONTEND set before it, and debconf could stop
# to ask questions.
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
