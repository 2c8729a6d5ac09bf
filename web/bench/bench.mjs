// bench.mjs: random Uint32Array keys, 2^from to 2^to, sorted by sort() (upload,
// draws and read back, all in the timed call), Uint32Array.prototype.sort on a
// copy, and radixSortU32; each result checked, the median of ?runs= runs after
// a warm-up run at the first size kept (the programs are compiled then). ?steps= is the steps a draw (1..3). Posts its table to /report.
import { Sorter } from "../dist/bitonic.mjs";
import { radixSortU32 } from "./radix.mjs";

const params = new URLSearchParams(location.search);
const from = Number(params.get("from") ?? 14), to = Number(params.get("to") ?? 20);
const runs = Number(params.get("runs") ?? 3);
const cpuRuns = Math.max(runs, 5);  // the CPU sorts are quick: more runs for a steadier median
const sorter = new Sorter(undefined, { stepsPerDraw: Number(params.get("steps") ?? 3) });

function median(values) {
  const sorted = values.slice().sort((a, b) => a - b);
  return sorted[sorted.length >> 1];
}

async function time(body, reference, warmUp, count = runs) {
  const times = [];
  for (let r = warmUp ? 0 : 1; r <= count; ++r) {
    const started = performance.now();
    const result = await body();
    const ms = performance.now() - started;
    for (let i = 0; i < reference.length; ++i)
      if (result[i] !== reference[i]) throw new Error(`wrong result at ${i}`);
    if (r > 0) times.push(ms);
  }
  return median(times);
}

const rate = (n, ms) => (n / ms / 1000).toPrecision(3);
const lines = [`| keys | bitonic sort() ms | Mkeys/s | Uint32Array.sort ms | Mkeys/s | JS radix ms | Mkeys/s |`,
  `|---:|---:|---:|---:|---:|---:|---:|`];
let failed = 0;
try {
  for (let k = from; k <= to; ++k) {
    const n = 1 << k;
    const keys = new Uint32Array(n);
    let x = 12345 + k;
    for (let i = 0; i < n; ++i) { x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0; keys[i] = x; }
    const reference = keys.slice().sort();
    const gpu = await time(() => sorter.sort(keys), reference, k === from);
    const builtin = await time(() => keys.slice().sort(), reference, k === from, cpuRuns);
    const radix = await time(() => radixSortU32(keys), reference, k === from, cpuRuns);
    lines.push(`| 2^${k} | ${gpu.toFixed(1)} | ${rate(n, gpu)} | ${builtin.toFixed(1)} | ${rate(n, builtin)} | ` +
      `${radix.toFixed(1)} | ${rate(n, radix)} |`);
    document.getElementById("table").textContent = lines.join("\n");
  }
} catch (error) {
  ++failed;
  lines.push(`FAIL ${error}`);
}
const gl = sorter.gl;
const info = gl.getExtension("WEBGL_debug_renderer_info");
lines.push(`renderer: ${info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER)}; ` +
  `steps a draw: ${sorter.stepsPerDraw}; median of ${runs} GPU runs, ${cpuRuns} CPU runs`);
await fetch("/report", { method: "POST", body: JSON.stringify({ passed: failed ? 0 : 1, failed, lines }) });
