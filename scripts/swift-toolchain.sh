#!/usr/bin/env bash
# Prints the root of the Swift toolchain `swift` runs (the directory holding usr/bin/swift), for
# mounting it read-only into a container build at the same path: SWIFT_TOOLCHAIN when set, else
# asked of the compiler itself (through swiftly's proxy too). Fails when there is none, or when the
# toolchain is the system's own /usr (mounting / is not an option: set SWIFT_TOOLCHAIN or use the
# official swift image).
set -euo pipefail
if [ -n "${SWIFT_TOOLCHAIN:-}" ]; then
    toolchain=$SWIFT_TOOLCHAIN
else
    resources=$(swift -print-target-info 2>/dev/null \
        | python3 -c 'import json, sys; print(json.load(sys.stdin)["paths"]["runtimeResourcePath"])') \
        || { echo "swift-toolchain: 'swift -print-target-info' failed: is Swift on PATH?" >&2; exit 1; }
    toolchain=${resources%/usr/lib/swift}
fi
if [ -z "$toolchain" ] || [ "$toolchain" = / ] || [ ! -x "$toolchain/usr/bin/swift" ]; then
    echo "swift-toolchain: no toolchain to mount at '${toolchain:-/}' (set SWIFT_TOOLCHAIN to a directory holding usr/bin/swift)" >&2
    exit 1
fi
echo "$toolchain"
