# Sourced by the end-to-end scripts that report PASS/FAIL per check (container-test.sh,
# compose-test.sh). Each script defines summary(), which ends with `checks_summary`, and may
# read `failures` (the failed checks' names).
passed=0
failed=0
failures=()

pass() { passed=$((passed + 1)); printf 'PASS  %s\n' "$*"; }
fail() { failed=$((failed + 1)); failures+=("$1"); printf 'FAIL  %s\n' "$*"; }
# abort CHECK: fails CHECK, prints the summary and exits 1 (a check the rest depends on).
abort() { fail "$1"; summary; exit 1; }

# checks_summary WHAT [NOTE]: "WHAT: N of M passed, K failed NOTE"; returns 0 when none failed.
checks_summary() {
    echo "$1: $passed of $((passed + failed)) passed, $failed failed${2:+ $2}"
    [ "$failed" -eq 0 ]
}
