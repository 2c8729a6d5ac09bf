#!/bin/bash
# h100_gles.sh: the fragment-shader backend (device gles) measured on the GPU
# machine, beside the compute path, in one run (issue 12, item 5). OpenGL ES
# comes from the NVIDIA driver through glvnd's EGL and the EGL device platform;
# the library tries the surfaceless Mesa platform first, which the NVIDIA EGL
# vendor does not offer, then the device platform.
#
# Writes to $OUT (the device tool's folder) or ./out:
#   info.txt        bitonic info (the gles line must name the NVIDIA renderer)
#   tests.txt       test_gles and gles_tour on the GPU, when the build has them
#   gles_<layout>_s<steps>.csv  bench --device gles for u32 keys and RGBA
#                   records, 2^10 up to what the textures hold (at most 2^24):
#                   median time of the draws (timer column: gl_timer_query or
#                   glfinish_wall), passes against log2 N (log2 N + 1) / 2,
#                   verified against the C reference; one step a draw in the
#                   layouts auto, 1d (one row, up to the largest texture side) and
#                   2d, then 2 and 3 steps a draw in the auto layout
#   compute.csv     bench --device $VK_DEVICE for u32 keys (the compute path:
#                   merge sort above the tile, and the pure network)
#   summary.md      one table of all of it
# Environment: MAX_LOG (24), RUNS (10), VK_DEVICE (NVIDIA), REQUIRE_RENDERER
# (NVIDIA when nvidia-smi exists, else empty: any renderer), SKIP_COMPUTE,
# SKIP_TESTS, BITONIC (the tool, default build/tools/bitonic/bitonic).
set -u
out=${OUT:-out}
mkdir -p "$out"
max_log=${MAX_LOG:-24}
runs=${RUNS:-10}
bitonic=${BITONIC:-build/tools/bitonic/bitonic}
status=0

# The carried .deb files (.gl/, as scripts/h100_run.sh unpacks them): the
# Vulkan loader the tool links, and glvnd's libEGL.so.1 and libGLESv2.so.2
# (libglvnd0, libegl1, libgles2 of Debian 12) where the machine lacks them.
if [ -d .gl ]; then
  for f in .gl/*.deb; do case "$f" in *validationlayers*) ;; *) dpkg -x "$f" /;; esac; done
  ldconfig
fi
nvidia_vendor=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
if [ -z "${__EGL_VENDOR_LIBRARY_FILENAMES:-}" ] && [ -f "$nvidia_vendor" ]; then
  export __EGL_VENDOR_LIBRARY_FILENAMES=$nvidia_vendor
fi
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
if command -v nvidia-smi > /dev/null; then
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/gpu.txt" 2>&1
  require=${REQUIRE_RENDERER-NVIDIA}
else
  require=${REQUIRE_RENDERER-}
fi

$bitonic info > "$out/info.txt" 2>&1
gles_line=$(grep -A1 '^OpenGL ES (device gles)' "$out/info.txt")
echo "$gles_line"
if ! echo "$gles_line" | grep -q 'largest texture side'; then
  echo "h100_gles: the gles device did not open: $gles_line" | tee -a "$out/summary.md"
  exit 1
fi
if [ -n "$require" ] && ! echo "$gles_line" | grep -qi "$require"; then
  echo "h100_gles: the gles renderer is not $require (check __EGL_VENDOR_LIBRARY_FILENAMES): $gles_line" \
    | tee -a "$out/summary.md"
  exit 1
fi

if [ -z "${SKIP_TESTS:-}" ]; then
  : > "$out/tests.txt"
  for t in test_gles gles_tour; do
    program=$(dirname "$bitonic")/../../tests/$t
    [ -x "$program" ] || continue
    "$program" > "$out/$t.log" 2>&1
    rc=$?; [ $rc -eq 0 ] || status=1
    echo "$t (exit $rc): $(tail -n 1 "$out/$t.log")" >> "$out/tests.txt"
    grep -m 5 FAIL "$out/$t.log" >> "$out/tests.txt"
    rm -f "$out/$t.log"
  done
  cat "$out/tests.txt"
fi

for config in auto:1 1d:1 2d:1 auto:2 auto:3; do
  layout=${config%:*} steps=${config#*:}
  $bitonic bench --device gles --layout "$layout" --max-steps "$steps" --min-log 10 --max-log "$max_log" \
    --runs "$runs" --types u32,records --csv > "$out/gles_${layout}_s$steps.csv" 2> "$out/gles_${layout}_s$steps.err" \
    || status=1
done
if [ -z "${SKIP_COMPUTE:-}" ]; then
  vk_device=${VK_DEVICE:-NVIDIA}
  $bitonic bench --device "$vk_device" --no-e2e --min-log 10 --max-log "$max_log" --runs "$runs" --types u32 \
    --csv > "$out/compute.csv" 2> "$out/compute.err" || status=1
  $bitonic bench --device "$vk_device" --no-e2e --network --min-log 10 --max-log "$max_log" --runs "$runs" \
    --types u32 --csv 2>> "$out/compute.err" | tail -n +2 >> "$out/compute.csv" || status=1
fi

python3 - "$out" <<'PY' || status=1
import csv, os, sys
out = sys.argv[1]
def rows(name):
    path = os.path.join(out, name)
    return list(csv.DictReader(open(path))) if os.path.exists(path) and os.path.getsize(path) else []
lines = ["# Fragment path (device gles) against the compute path", ""]
info = open(os.path.join(out, "info.txt")).read().splitlines()
lines += ["    " + l for l in info if l.startswith("OpenGL ES") or l.startswith("  largest")] + [""]
compute = {}
for r in rows("compute.csv"):
    if r["type"] == "u32":
        compute[(r["impl"], int(r["n"]))] = float(r["median_ms"])
bad = 0
for layout, steps in (("auto", 1), ("1d", 1), ("2d", 1), ("auto", 2), ("auto", 3)):
    gles = rows("gles_%s_s%d.csv" % (layout, steps))
    if not gles:
        continue
    lines += ["## layout %s, %d step%s a draw (timer: %s)" % (layout, steps, "s" if steps > 1 else "", gles[0]["timer"]), "",
              "| keys | texture | passes | formula | u32 ms | RGBA records ms | compute u32 ms (merge) | compute u32 ms (network) | u32 fragment / compute |",
              "|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    by_n = {}
    for r in gles:
        by_n.setdefault(int(r["n"]), {})[r["type"]] = r
        bad += r["verified"] != "1" or r["passes"] != r["expected_passes"] or (steps == 1 and r["passes"] != r["formula_passes"])
    for n in sorted(by_n):
        u, rec = by_n[n].get("u32"), by_n[n].get("rgba_f32")
        any_row = u or rec
        merge, network = compute.get(("bitonic", n)), compute.get(("bitonic_network", n))
        u_ms = float(u["median_ms"]) if u else None
        fmt = lambda v: "%.4f" % v if v is not None else "-"
        ratio = "%.1fx" % (u_ms / merge) if u_ms and merge else "-"
        lines.append("| 2^%d | %sx%s | %s | %s | %s | %s | %s | %s | %s |" % (
            n.bit_length() - 1, any_row["width"], any_row["height"], any_row["passes"], any_row["formula_passes"],
            fmt(u_ms), fmt(float(rec["median_ms"]) if rec else None), fmt(merge), fmt(network), ratio))
    lines.append("")
lines.append("Every row verified against the C reference, passes as expected (= formula at one step a draw): %s"
             % ("yes" if bad == 0 else "NO (%d rows)" % bad))
open(os.path.join(out, "summary.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
sys.exit(1 if bad else 0)
PY
tail -n 3 "$out"/gles_*.err "$out/compute.err" 2>/dev/null
exit $status
