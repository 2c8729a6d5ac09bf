// verify.mjs: N random keys (floats with NaN, ±0 and ±inf among them) sorted by
// sort() in the module's WebGL2 context and compared with Array.prototype.sort
// on plain numbers. The query (?n=&type=&descending=1) fills the form and runs
// it at once; with ?report=1 the outcome goes to /report (web/test.sh).
import { sort } from "../dist/bitonic.mjs";

const TYPES = { u32: Uint32Array, i32: Int32Array, f32: Float32Array };
const form = document.getElementById("form");
const out = document.getElementById("result");
const params = new URLSearchParams(location.search);

// Array.prototype.sort's comparator for the documented order: NaN last, -0 before +0.
function compare(a, b) {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) - Number.isNaN(b);
  if (a === 0 && b === 0) return Object.is(a, -0) ? (Object.is(b, -0) ? 0 : -1) : (Object.is(b, -0) ? 1 : 0);
  return a < b ? -1 : a > b ? 1 : 0;
}

async function run(n, type, descending) {
  const keys = new TYPES[type](n);
  const bits = new Uint32Array(keys.buffer);
  crypto.getRandomValues(new Uint8Array(keys.buffer).subarray(0, Math.min(keys.byteLength, 65536)));
  for (let i = 65536 / 4; i < n; ++i) bits[i] = (Math.random() * 4294967296) >>> 0;
  if (type === "f32") {
    const special = [NaN, -0, 0, Infinity, -Infinity];
    for (let i = 0; i < n; i += 97) keys[i] = special[(i / 97) % special.length];
  }
  const started = performance.now();
  const sorted = await sort(keys, { descending });
  const gpuMs = performance.now() - started;
  const cpuStarted = performance.now();
  const reference = Array.from(keys).sort(descending ? (a, b) => compare(b, a) : compare);
  const cpuMs = performance.now() - cpuStarted;
  let mismatch = -1;
  for (let i = 0; i < n && mismatch < 0; ++i) if (!Object.is(sorted[i], reference[i])) mismatch = i;
  const ok = mismatch < 0 && sorted.length === n;
  const line = `${ok ? "ok" : "FAIL"} verify: ${n} random ${type} keys ${descending ? "descending" : "ascending"} ` +
    `match Array.prototype.sort` + (ok ? "" : ` (first difference at ${mismatch}: ${sorted[mismatch]}, expected ${reference[mismatch]})`);
  out.textContent = `${line}\nGPU sort (upload, draws, read back): ${gpuMs.toFixed(1)} ms\nArray.prototype.sort: ${cpuMs.toFixed(1)} ms`;
  return { ok, line };
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const data = new FormData(form);
  out.textContent = "sorting…";
  try {
    await run(Number(data.get("n")), data.get("type"), data.get("descending") === "on");
  } catch (error) {
    out.textContent = `error: ${error.message}`;
  }
});

if (params.has("n")) {
  form.n.value = params.get("n");
  form.type.value = params.get("type") ?? "f32";
  form.descending.checked = params.get("descending") === "1";
  let report;
  try {
    report = await run(Number(form.n.value), form.type.value, form.descending.checked);
  } catch (error) {
    report = { ok: false, line: `FAIL verify: ${error.message}` };
    out.textContent = report.line;
  }
  if (params.get("report"))
    await fetch("/report", { method: "POST", body: JSON.stringify({ passed: report.ok ? 1 : 0, failed: report.ok ? 0 : 1, lines: [report.line] }) });
}
