#!/bin/sh
# test.sh: builds web/ and runs its tests in headless Chromium (SwiftShader's
# WebGL2), served from 127.0.0.1 only: tests/index.html (sort, argsort and
# Sorter.sortTexture against JavaScript's sorts, limits, GL state, lost
# contexts), the verify page, the demo's own order check, and a screenshot of
# the demo that must be a picture. Lengths go up to 2^MAX_LOG (default 18, the
# whole range; a smaller MAX_LOG for a quicker run).
# Ends with "web: N passed, M failed"; exits non-zero on any failure.
set -u
web=$(cd "$(dirname "$0")" && pwd)
max_log=${MAX_LOG:-18}
out=$(mktemp -d "${TMPDIR:-/tmp}/bitonic-web.XXXXXX")
driver=""
cleanup() {
    if [ -n "$driver" ]; then kill "$driver" 2>/dev/null; wait "$driver" 2>/dev/null; fi
    rm -rf "$out"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
started=$(date +%s)
passed=0 failed=0

if ! sh "$web/build.sh"; then
    echo "web: 0 passed, 1 failed (the build)"
    exit 1
fi

# One page through browser.py, in the background so that the traps can end it;
# its lines count as tests ("ok ..." passed, "FAIL ..." failed), and a page that
# reports nothing is one failure.
page() {
    timeout=$1; shift
    python3 "$web/tools/browser.py" "$@" --timeout "$timeout" > "$out/page.log" 2>&1 &
    driver=$!
    wait "$driver"
    code=$?
    driver=""
    grep -v '^ok ' "$out/page.log" | sed 's/^/  /'
    ok=$(grep -c '^ok ' "$out/page.log")
    bad=$(grep -c '^FAIL' "$out/page.log")
    if [ "$code" -ne 0 ] && [ "$bad" -eq 0 ]; then bad=1; fi
    passed=$((passed + ok))
    failed=$((failed + bad))
    echo "$2: $ok passed, $bad failed"
}

# Up to 2^18 the tests page takes about a minute on SwiftShader (docs/WEB.md);
# past it, sorts of millions of keys take longer.
if [ "$max_log" -gt 18 ]; then tests_timeout=3000; else tests_timeout=600; fi
page "$tests_timeout" report "tests/index.html?max=$max_log"
page 120 report "demo/verify.html?n=20000&type=f32&descending=1&report=1"
page 120 report "demo/verify.html?n=5000&type=i32&report=1"
page 120 report "demo/index.html?n=1000&report=1"
page 120 report "demo/index.html?n=3000&report=1"
python3 "$web/tools/browser.py" screenshot "demo/index.html?n=4000" "$out/demo.png" --wait-ms 8000 --timeout 120 \
    > "$out/page.log" 2>&1 &
driver=$!
wait "$driver" && code=0 || code=$?
driver=""
cat "$out/page.log"
if [ "$code" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi

echo "web: $(( $(date +%s) - started )) s, lengths up to 2^$max_log"
echo "web: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
