#!/usr/bin/env bash
# Builds the DocC documentation of the public modules with the swift-docc-plugin, warnings as
# errors (a broken symbol link or a doc comment naming a parameter that does not exist fails it):
#
#   scripts/docs.sh                 # the catalogs of ReMVVM, ReMVVMServer and ReMVVMServerCommand
#   DOCS_OUTPUT=/tmp/docs scripts/docs.sh   # and keep the archives there (default: a temporary folder)
#
# What CI runs (scripts/test.sh). Open an archive with `docc preview` or serve it as a static site
# (`swift package generate-documentation --target ReMVVMServerCommand --transform-for-static-hosting`).
set -euo pipefail
cd "$(dirname "$0")/.."

TARGETS=(ReMVVM ReMVVMServer ReMVVMServerCommand)
OUTPUT=${DOCS_OUTPUT:-$(mktemp -d /tmp/remvvm-docs.XXXXXX)}
started=$SECONDS
failed=()
for target in "${TARGETS[@]}"; do
    mkdir -p "$OUTPUT/$target"
    # --allow-writing-to-directory: the plugin may write only where it is told.
    if ! swift package --allow-writing-to-directory "$OUTPUT/$target" generate-documentation \
        --target "$target" --output-path "$OUTPUT/$target" --warnings-as-errors >"$OUTPUT/$target.log" 2>&1; then
        # docc's diagnostics, each with its source lines; not the plugin's follow-up errors.
        grep -E -A6 "^(warning|error): " "$OUTPUT/$target.log" | grep -v -e "^error: 'docc convert'" -e "^error: Error Domain" >&2 \
            || tail -40 "$OUTPUT/$target.log" >&2
        echo "FAIL: the documentation of $target has warnings or errors (log: $OUTPUT/$target.log)" >&2
        failed+=("$target")
        continue
    fi
    echo "ok: $target ($OUTPUT/$target)"
done
echo "documentation built in $((SECONDS - started)) s"
[ "${#failed[@]}" = 0 ] || { echo "FAIL: ${failed[*]}" >&2; exit 1; }
