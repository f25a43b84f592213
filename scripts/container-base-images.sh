#!/usr/bin/env bash
# The two base images the Dockerfile builds from: the official ones when they are present or can
# be pulled, otherwise local stand-ins, for machines that cannot pull from a registry (this
# project's dev and CI machines):
#
#   localhost/remvvm-standin/debian:bookworm-slim  - debootstrap'd Debian bookworm (minbase,
#                                                    trimmed like -slim), for debian:bookworm-slim
#   localhost/remvvm-standin/swift:6.3-bookworm    - that rootfs plus the packages the official
#                                                    swift image installs, a gitconfig that maps
#                                                    github.com to the host's package mirror, and
#                                                    PATH pointing at the host's Swift toolchain,
#                                                    which the build mounts read-only at the same
#                                                    path; for swift:6.3-bookworm
#
# Prints the images to build from on stdout, as the Dockerfile's build arguments:
#   RUNTIME_IMAGE=<image>
#   BUILDER_IMAGE=<image>
# (podman build --build-arg RUNTIME_IMAGE=… --build-arg BUILDER_IMAGE=…); everything else goes
# to stderr. Stand-ins never take the official names (an image built from the official Dockerfile
# on the same machine would get one without a toolchain): earlier versions of this script did,
# and such images are renamed to the stand-in names when found.
#
# Idempotent: a stand-in that already exists is left alone (FORCE=1 remakes both).
# Everything machine-specific lives here and in container-test.sh; the Dockerfile names the
# official images by default.
#
# Environment:
#   DEBIAN_MIRROR     Debian mirror (default: read from /etc/apt/sources*)
#   SWIFT_TOOLCHAIN   host toolchain root with usr/bin/swift (default: asked of `swift`)
#   FORCE=1           use (and remake) the stand-ins even when the official images are there
set -euo pipefail

OFFICIAL_RUNTIME_IMAGE=docker.io/library/debian:bookworm-slim
OFFICIAL_BUILDER_IMAGE=docker.io/library/swift:6.3-bookworm
STANDIN_RUNTIME_IMAGE=localhost/remvvm-standin/debian:bookworm-slim
STANDIN_BUILDER_IMAGE=localhost/remvvm-standin/swift:6.3-bookworm
SUITE=bookworm
FORCE="${FORCE:-0}"

log() { printf '[base-images] %s\n' "$*" >&2; }
die() { printf '[base-images] ERROR: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (debootstrap, rootful podman)"

need_pkgs=()
command -v podman >/dev/null || need_pkgs+=(podman)
command -v runc >/dev/null || need_pkgs+=(runc)
command -v debootstrap >/dev/null || need_pkgs+=(debootstrap)
if [ "${#need_pkgs[@]}" -gt 0 ]; then
    log "installing ${need_pkgs[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q "${need_pkgs[@]}" >/dev/null \
        || { apt-get update -q >/dev/null && apt-get install -y -q "${need_pkgs[@]}" >/dev/null; }
fi

# ---------------------------------------------------------------- mirror ----
# Every URI in the host's apt sources (one-line or deb822 format), without trailing slashes
# and without snapshot.debian.org ones.
apt_source_uris() {
    local files=() f
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] && files+=("$f")
    done
    [ "${#files[@]}" -gt 0 ] || return 0
    grep -hoE '(https?|file)://[^ ]+' "${files[@]}" 2>/dev/null | grep -v snapshot | sed 's:/*$::'
}
# First "…/debian" URI (not a security one), and first "…/debian-security" URI. Print nothing
# and succeed when there is none: the callers fall back to their defaults (under pipefail a grep
# without a match would otherwise stop the script).
detect_mirror() { apt_source_uris | grep -v security | grep -E '/debian$' | head -n1 || true; }
detect_security_mirror() { apt_source_uris | grep -E '/debian-security$' | head -n1 || true; }

image_exists() { [ "$FORCE" != 1 ] && podman image exists "$1"; }

# Whether image $1 is a stand-in an earlier version of this script made under an official name.
is_standin() {
    podman image inspect --format '{{.Comment}} {{index .Labels "org.remvvm.local-standin"}}' "$1" 2>/dev/null \
        | grep -q -e 'local stand-in' -e 'toolchain mounted from host'
}

# Whether official image $1 is here or can be pulled; a stand-in under its name is renamed to $2.
official_available() {
    local official=$1 standin=$2 failure
    [ "$FORCE" != 1 ] || return 1
    if podman image exists "$official"; then
        is_standin "$official" || return 0
        log "renaming $official to $standin: a local stand-in, not the official image"
        podman image exists "$standin" || podman tag "$official" "$standin"
        podman untag "$official" "$official"
    fi
    if failure=$(timeout 300 podman pull -q "$official" 2>&1 >/dev/null); then
        log "$official pulled"
        return 0
    fi
    log "$official cannot be pulled (${failure##*$'\n'}): using a local stand-in"
    return 1
}

WORK=""
cleanup() { if [ -n "$WORK" ]; then rm -rf "$WORK"; fi; }
trap cleanup EXIT

# --------------------------------------------------------- runtime image ----
make_runtime_image() {
    local RUNTIME_IMAGE=$STANDIN_RUNTIME_IMAGE
    local mirror security rootfs
    mirror="${DEBIAN_MIRROR:-$(detect_mirror)}"
    mirror="${mirror:-http://deb.debian.org/debian}"
    security="${DEBIAN_SECURITY_MIRROR:-$(detect_security_mirror)}"
    WORK="$(mktemp -d /var/tmp/remvvm-rootfs.XXXXXX)"
    rootfs="$WORK/rootfs"
    log "debootstrap --variant=minbase $SUITE from $mirror (about 30 s)"
    debootstrap --variant=minbase "$SUITE" "$rootfs" "$mirror" >"$WORK/debootstrap.log" 2>&1 \
        || { tail -n 30 "$WORK/debootstrap.log" >&2; die "debootstrap failed (log above)"; }

    # apt sources in the same deb822 form the official image uses.
    rm -f "$rootfs/etc/apt/sources.list"
    {
        printf 'Types: deb\nURIs: %s\nSuites: %s %s-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
            "$mirror" "$SUITE" "$SUITE"
        if [ -n "$security" ]; then
            printf '\nTypes: deb\nURIs: %s\nSuites: %s-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
                "$security" "$SUITE"
        fi
    } >"$rootfs/etc/apt/sources.list.d/debian.sources"

    # Trim like the official -slim variant: no docs/man/locales, no apt caches.
    cat >"$rootfs/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
EOF
    cat >"$rootfs/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
    echo 'Acquire::Languages "none";' >"$rootfs/etc/apt/apt.conf.d/docker-no-languages"
    find "$rootfs/usr/share/doc" -mindepth 2 ! -name copyright ! -type d -delete 2>/dev/null || true
    find "$rootfs/usr/share/doc" -mindepth 1 -type d -empty -delete 2>/dev/null || true
    rm -rf "$rootfs"/usr/share/{man,info,groff,lintian,linda,locale}/* \
           "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin \
           "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/log/*.log \
           "$rootfs"/dev/* "$rootfs"/proc/* "$rootfs"/sys/* "$rootfs"/tmp/* \
           "$rootfs"/etc/resolv.conf "$rootfs"/etc/hostname

    log "importing rootfs as $RUNTIME_IMAGE"
    tar --numeric-owner -C "$rootfs" -c . \
        | podman import \
            --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
            --change 'CMD ["bash"]' \
            --message "debootstrap --variant=minbase $SUITE $mirror (local stand-in for $OFFICIAL_RUNTIME_IMAGE)" \
            - "$RUNTIME_IMAGE" >/dev/null 2>"$WORK/import.log" \
        || { cat "$WORK/import.log" >&2; die "podman import failed"; }
    rm -rf "$WORK"; WORK=""
}

# --------------------------------------------------------- builder image ----
make_builder_image() {
    local toolchain ctx RUNTIME_IMAGE=$1 BUILDER_IMAGE=$STANDIN_BUILDER_IMAGE
    toolchain="$("$(dirname "${BASH_SOURCE[0]}")/swift-toolchain.sh")" || die "no Swift toolchain to mount (set SWIFT_TOOLCHAIN)"

    ctx="$(mktemp -d /var/tmp/remvvm-builder.XXXXXX)"
    WORK="$ctx"
    # The host's url.<base>.insteadOf rules (github.com -> local package mirror).
    : >"$ctx/gitconfig"
    local key value n=0
    while read -r key value; do
        [ -n "$key" ] || continue
        git config --file "$ctx/gitconfig" --add "$key" "$value"
        n=$((n + 1))
    done < <( { git config --system --get-regexp '^url\..*\.insteadof$' || true;
                git config --global --get-regexp '^url\..*\.insteadof$' || true; } | sort -u)
    log "builder gitconfig: $n insteadOf rule(s)"

    cat >"$ctx/Containerfile" <<EOF
FROM $RUNTIME_IMAGE
# What the official swift:*-bookworm image installs for the toolchain (plus
# libncurses6, which its non-slim debian:bookworm base already has).
RUN export DEBIAN_FRONTEND=noninteractive DEBIAN_PRIORITY=critical \\
    && apt-get -q update \\
    && apt-get -q install -y --no-install-recommends \\
        binutils ca-certificates git gnupg2 libc6-dev libcurl4-openssl-dev \\
        libedit2 libgcc-12-dev libncurses6 libpython3-dev libsqlite3-0 \\
        libstdc++-12-dev libxml2-dev libz3-dev pkg-config tzdata zlib1g-dev \\
    && rm -rf /var/lib/apt/lists/*
COPY gitconfig /etc/gitconfig
# The toolchain itself is the host's, bind-mounted read-only at this path by
# scripts/container-test.sh (podman build -v $toolchain:$toolchain:ro).
ENV PATH=$toolchain/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
LABEL org.remvvm.local-standin="swift toolchain mounted from host: $toolchain"
CMD ["bash"]
EOF
    log "building $BUILDER_IMAGE (apt packages for the toolchain)"
    podman build --isolation chroot --network host --pull=never --format docker \
        -t "$BUILDER_IMAGE" "$ctx" >"$ctx/build.log" 2>&1 \
        || { tail -n 30 "$ctx/build.log" >&2; die "builder image build failed (log above)"; }
    rm -rf "$ctx"; WORK=""
}

if official_available "$OFFICIAL_RUNTIME_IMAGE" "$STANDIN_RUNTIME_IMAGE"; then
    runtime=$OFFICIAL_RUNTIME_IMAGE
else
    runtime=$STANDIN_RUNTIME_IMAGE
    if image_exists "$runtime"; then log "$runtime present, skipping"; else make_runtime_image; fi
fi
if official_available "$OFFICIAL_BUILDER_IMAGE" "$STANDIN_BUILDER_IMAGE"; then
    builder=$OFFICIAL_BUILDER_IMAGE
else
    builder=$STANDIN_BUILDER_IMAGE
    if image_exists "$builder"; then log "$builder present, skipping"; else make_builder_image "$runtime"; fi
fi
echo "RUNTIME_IMAGE=$runtime"
echo "BUILDER_IMAGE=$builder"
