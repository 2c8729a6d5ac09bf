#!/bin/sh
# bench.sh: builds web/ and prints the keys-per-second table of bench/bench.mjs
# in headless Chromium (SwiftShader's WebGL2 unless CHROMIUM names another
# browser), 2^FROM to 2^TO keys (default 14 to 20), RUNS runs each (default 1).
set -eu
web=$(cd "$(dirname "$0")" && pwd)
sh "$web/build.sh" > /dev/null
from=${FROM:-14} to=${TO:-20} runs=${RUNS:-1} steps=${STEPS:-3}
echo "load before: $(cat /proc/loadavg)"
python3 "$web/tools/browser.py" report "bench/index.html?from=$from&to=$to&runs=$runs&steps=$steps" --timeout 3000
echo "load after: $(cat /proc/loadavg)"
