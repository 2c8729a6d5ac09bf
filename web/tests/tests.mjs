// tests.mjs: sort, argsort and Sorter.sortTexture against JavaScript's own
// sorts, in a real WebGL2 context; the results go to the page, the console and
// a POST to /report (web/tools/browser.py). ?max=K limits lengths to 2^K.
import { sort, argsort, Sorter, orderedBits } from "../dist/bitonic.mjs";

const params = new URLSearchParams(location.search);
const maxLog = Number(params.get("max") ?? 18);
const lines = [];
let passed = 0, failed = 0;

function record(name, ok, detail = "", ms = null) {
  if (ok) ++passed; else ++failed;
  const time = ms === null ? "" : ` (${ms.toFixed(0)} ms)`;
  const line = `${ok ? "ok" : "FAIL"} ${name}${time}${detail ? ": " + detail : ""}`;
  lines.push(line);
  console.log(line);
  document.getElementById("log").textContent += line + "\n";
}

async function check(name, body) {
  const started = performance.now();
  try {
    const detail = await body();
    record(name, detail === undefined || detail === true, detail === true ? "" : detail, performance.now() - started);
  } catch (error) {
    record(name, false, `threw ${error && error.stack ? error.stack : error}`);
  }
}

async function rejects(name, body, pattern, kind = Error) {
  try {
    await body();
    record(name, false, "resolved; a rejection was expected");
  } catch (error) {
    const ok = error instanceof kind && pattern.test(error.message);
    record(name, ok, ok ? "" : `wrong error: ${error}`);
  }
}

// A small deterministic generator (xorshift32), so a failure can be replayed.
function generator(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    return x;
  };
}

// Keys as raw bits: random words with a quarter drawn from a pool of 16, so
// equal keys occur; floats also get NaNs of both signs and payloads, ±0 and ±inf.
const SPECIAL_FLOATS = [0x7fc00000, 0xffc00000, 0x7f800001, 0xff812345, 0x80000000, 0x00000000,
  0x7f800000, 0xff800000, 0x00000001, 0x80000001];
function keyBits(count, keyType, seed) {
  const next = generator(seed);
  const pool = Array.from({ length: 16 }, () => next());
  const bits = new Uint32Array(count);
  for (let i = 0; i < count; ++i) {
    const r = next();
    bits[i] = (r & 3) === 0 ? pool[r >>> 28] : next();
    if (keyType === "f32" && (r & 0xf0) === 0) bits[i] = SPECIAL_FLOATS[(r >>> 8) % SPECIAL_FLOATS.length];
  }
  return bits;
}

const TYPES = { u32: Uint32Array, i32: Int32Array, f32: Float32Array };

function referenceBits(bits, keyType, descending) {
  const ordered = Uint32Array.from(bits, (b) => orderedBits(b, keyType));
  const order = Array.from(ordered.keys()).sort((a, b) => ordered[a] - ordered[b]);
  const result = Uint32Array.from(order, (i) => bits[i]);
  return descending ? result.reverse() : result;
}

function firstDifference(a, b) {
  if (a.length !== b.length) return `length ${a.length}, expected ${b.length}`;
  for (let i = 0; i < a.length; ++i)
    if (!Object.is(a[i], b[i]) && !(a[i] !== a[i] && b[i] !== b[i])) return `at ${i}: ${a[i]}, expected ${b[i]}`;
  return null;
}

function lengths() {
  const list = [0, 1];
  for (let k = 1; k <= maxLog; ++k) list.push((1 << k) - 1, 1 << k, (1 << k) + 1);
  return [...new Set(list)].sort((a, b) => a - b);
}

// Every type and order up to 2^12 keys; past it, where one SwiftShader sort
// takes seconds, each length once, the type and order turning with the length.
function sortCases() {
  const cases = [], combos = [];
  for (const keyType of Object.keys(TYPES)) for (const descending of [false, true]) combos.push([keyType, descending]);
  let turn = 0;
  for (const n of lengths()) {
    if (n <= 1 << 12) for (const combo of combos) cases.push([...combo, n]);
    else cases.push([...combos[turn++ % combos.length], n]);
  }
  return cases;
}

async function sortTests() {
  for (const [keyType, descending, n] of sortCases()) {
    {
      {
        await check(`sort ${keyType} ${descending ? "descending" : "ascending"} n=${n}`, async () => {
          const bits = keyBits(n, keyType, n * 7 + keyType.length + (descending ? 1 : 0));
          const input = new TYPES[keyType](bits.buffer.slice(0));
          const sorted = await sort(input, { descending });
          if (!(sorted instanceof TYPES[keyType])) return `returned a ${sorted.constructor.name}`;
          const unchanged = firstDifference(new Uint32Array(input.buffer), bits);
          if (unchanged) return `the input changed, ${unchanged}`;
          // JavaScript's own sort, by value (NaN last, -0 before +0) ...
          const js = new TYPES[keyType](bits.buffer.slice(0)).sort();
          if (descending) js.reverse();
          const byValue = firstDifference(sorted, js);
          if (byValue) return `against ${TYPES[keyType].name}.prototype.sort, ${byValue}`;
          // ... and bit for bit against the library's order (NaN payloads included).
          const byBits = firstDifference(new Uint32Array(sorted.buffer), referenceBits(bits, keyType, descending));
          return byBits ? `bits, ${byBits}` : undefined;
        });
      }
    }
  }
}

async function argsortTests() {
  for (const [keyType, descending, n] of sortCases()) {
    {
      {
        await check(`argsort ${keyType} ${descending ? "descending" : "ascending"} n=${n}`, async () => {
          const bits = keyBits(n, keyType, n * 13 + 5);
          const input = new TYPES[keyType](bits.buffer);
          const indices = await argsort(input, { descending, stable: true });
          if (!(indices instanceof Uint32Array)) return `returned a ${indices.constructor.name}`;
          const ordered = Uint32Array.from(bits, (b) => orderedBits(b, keyType));
          // Array.prototype.sort is stable, so equal keys keep their index order in both directions.
          const expected = Array.from(ordered.keys()).sort((a, b) =>
            descending ? ordered[b] - ordered[a] : ordered[a] - ordered[b]);
          return firstDifference(indices, Uint32Array.from(expected)) ?? undefined;
        });
      }
    }
  }
}

// Texel words of a texture, read back with the caller's own WebGL calls.
function readTexture(gl, texture, width, height) {
  const framebuffer = gl.createFramebuffer();
  gl.bindFramebuffer(gl.READ_FRAMEBUFFER, framebuffer);
  gl.framebufferTexture2D(gl.READ_FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, texture, 0);
  const texels = new Uint32Array(width * height * 4);
  gl.readPixels(0, 0, width, height, gl.RGBA_INTEGER, gl.UNSIGNED_INT, texels);
  gl.bindFramebuffer(gl.READ_FRAMEBUFFER, null);
  gl.deleteFramebuffer(framebuffer);
  return texels;
}

const FORMATS = { records: [4, "RGBA32UI", "RGBA_INTEGER"], pairs: [2, "RG32UI", "RG_INTEGER"], keys: [1, "R32UI", "RED_INTEGER"] };

function makeTexture(gl, texels, words, width, height) {
  const [, internal, format] = FORMATS[texels];
  const texture = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, texture);
  gl.texStorage2D(gl.TEXTURE_2D, 1, gl[internal], width, height);
  gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, width, height, gl[format], gl.UNSIGNED_INT, words);
  gl.bindTexture(gl.TEXTURE_2D, null);
  return texture;
}

// The contract of bitonic_gles.h: by the component's ordered bits, ties by the
// other components (records: r, g, b, a order; pairs: the value) as u32.
function referenceTexels(words, perTexel, count, texels, keyType, component, descending) {
  const rank = (i) => {
    const base = i * perTexel;
    const key = orderedBits(words[base + component], keyType) ^ (descending ? 0xffffffff : 0);
    const rest = [];
    for (let c = 0; c < perTexel; ++c) if (c !== component) rest.push(words[base + c]);
    return [key >>> 0, ...rest];
  };
  const ranks = Array.from({ length: count }, (_, i) => rank(i));
  const order = Array.from(ranks.keys()).sort((a, b) => {
    for (let c = 0; c < ranks[a].length; ++c) if (ranks[a][c] !== ranks[b][c]) return ranks[a][c] - ranks[b][c];
    return 0;
  });
  const out = words.slice();
  order.forEach((from, to) => out.set(words.subarray(from * perTexel, from * perTexel + perTexel), to * perTexel));
  return out;
}

async function textureTests(gl, sorter) {
  const cases = [
    { name: "1D records f32 by a", texels: "records", width: 1000, height: 1, count: 1000, keyType: "f32", component: 3 },
    { name: "1D records u32 by r, a tail left alone", texels: "records", width: 4096, height: 1, count: 3001, keyType: "u32", component: 0 },
    { name: "2D records i32 by g", texels: "records", width: 128, height: 32, count: 128 * 32, keyType: "i32", component: 1 },
    { name: "2D records f32 by b, partial last row", texels: "records", width: 120, height: 100, count: 11001, keyType: "f32", component: 2 },
    { name: "2D keys f32", texels: "keys", width: 64, height: 100, count: 6345, keyType: "f32", component: 0 },
    { name: "2D pairs i32", texels: "pairs", width: 64, height: 64, count: 4000, keyType: "i32", component: 0 },
  ];
  for (const c of cases) {
    for (const descending of [false, true]) {
      await check(`sortTexture ${c.name} ${descending ? "descending" : "ascending"}`, async () => {
        const perTexel = FORMATS[c.texels][0];
        const texelCount = c.width * c.height;
        const words = keyBits(texelCount * perTexel, c.keyType, texelCount + c.component);
        // Components other than the key: small values, so ties of the key are broken by them.
        for (let i = 0; i < texelCount; ++i)
          for (let k = 0; k < perTexel; ++k) if (k !== c.component) words[i * perTexel + k] %= 4;
        const texture = makeTexture(gl, c.texels, words, c.width, c.height);
        const result = await sorter.sortTexture(texture, { width: c.width, height: c.height, count: c.count,
          component: c.component, keyType: c.keyType, descending, texels: c.texels });
        const read = readTexture(gl, texture, c.width, c.height);
        gl.deleteTexture(texture);
        const got = new Uint32Array(texelCount * perTexel);
        for (let i = 0; i < texelCount; ++i) got.set(read.subarray(i * 4, i * 4 + perTexel), i * perTexel);
        const expected = referenceTexels(words, perTexel, c.count, c.texels, c.keyType, c.component, descending);
        const difference = firstDifference(got, expected);
        if (difference) return `word ${difference}`;
        return result.draws > 0 ? undefined : `draws ${result.draws}`;
      });
    }
  }
}

// Every piece of state the API says it restores, set to something that is not
// the default, and compared after a texture sort and a host sort.
async function stateTests(gl, sorter) {
  const program = gl.createProgram();
  const vs = gl.createShader(gl.VERTEX_SHADER);
  gl.shaderSource(vs, "#version 300 es\nvoid main() { gl_Position = vec4(0.0); }");
  gl.compileShader(vs);
  const fs = gl.createShader(gl.FRAGMENT_SHADER);
  gl.shaderSource(fs, "#version 300 es\nprecision mediump float; out vec4 c; void main() { c = vec4(1.0); }");
  gl.compileShader(fs);
  gl.attachShader(program, vs);
  gl.attachShader(program, fs);
  gl.linkProgram(program);
  const framebuffer = gl.createFramebuffer(), readFramebuffer = gl.createFramebuffer();
  const vao = gl.createVertexArray(), sampler = gl.createSampler(), bound = gl.createTexture();
  const buffer = gl.createBuffer();
  const set = () => {
    gl.useProgram(program);
    gl.bindFramebuffer(gl.DRAW_FRAMEBUFFER, framebuffer);
    gl.bindFramebuffer(gl.READ_FRAMEBUFFER, readFramebuffer);
    gl.viewport(3, 4, 50, 60);
    gl.activeTexture(gl.TEXTURE0);
    gl.bindTexture(gl.TEXTURE_2D, bound);
    gl.bindSampler(0, sampler);
    gl.activeTexture(gl.TEXTURE5);
    gl.bindVertexArray(vao);
    gl.colorMask(true, false, true, false);
    gl.enable(gl.BLEND); gl.enable(gl.DEPTH_TEST); gl.enable(gl.SCISSOR_TEST); gl.enable(gl.CULL_FACE);
    gl.enable(gl.STENCIL_TEST);
    gl.bindBuffer(gl.PIXEL_UNPACK_BUFFER, buffer);
    gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1); gl.pixelStorei(gl.PACK_ALIGNMENT, 2);
    gl.pixelStorei(gl.UNPACK_ROW_LENGTH, 7); gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, true);
  };
  const snapshot = () => {
    const active = gl.getParameter(gl.ACTIVE_TEXTURE);
    gl.activeTexture(gl.TEXTURE0);
    const unit0 = [gl.getParameter(gl.TEXTURE_BINDING_2D), gl.getParameter(gl.SAMPLER_BINDING)];
    gl.activeTexture(active);
    return {
      program: gl.getParameter(gl.CURRENT_PROGRAM), draw: gl.getParameter(gl.DRAW_FRAMEBUFFER_BINDING),
      read: gl.getParameter(gl.READ_FRAMEBUFFER_BINDING), viewport: [...gl.getParameter(gl.VIEWPORT)],
      active, texture: unit0[0], sampler: unit0[1], vao: gl.getParameter(gl.VERTEX_ARRAY_BINDING),
      mask: [...gl.getParameter(gl.COLOR_WRITEMASK)],
      caps: [gl.BLEND, gl.DEPTH_TEST, gl.STENCIL_TEST, gl.SCISSOR_TEST, gl.CULL_FACE, gl.RASTERIZER_DISCARD].map((c) => gl.isEnabled(c)),
      unpackBuffer: gl.getParameter(gl.PIXEL_UNPACK_BUFFER_BINDING),
      pixel: [gl.UNPACK_ALIGNMENT, gl.PACK_ALIGNMENT, gl.UNPACK_ROW_LENGTH, gl.UNPACK_FLIP_Y_WEBGL].map((p) => gl.getParameter(p)),
    };
  };
  const compare = (a, b) => {
    for (const key of Object.keys(a)) {
      const x = a[key], y = b[key];
      const same = Array.isArray(x) ? x.length === y.length && x.every((v, i) => v === y[i]) : x === y;
      if (!same) return `${key} changed`;
    }
    return undefined;
  };
  await check("GL state restored after sortTexture", async () => {
    const words = keyBits(512 * 4, "u32", 99);
    gl.bindBuffer(gl.PIXEL_UNPACK_BUFFER, null);
    gl.pixelStorei(gl.UNPACK_ROW_LENGTH, 0); gl.pixelStorei(gl.UNPACK_ALIGNMENT, 4); gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
    const texture = makeTexture(gl, "records", words, 512, 1);
    set();
    const before = snapshot();
    await sorter.sortTexture(texture, { width: 512, keyType: "u32" });
    const difference = compare(before, snapshot());
    gl.deleteTexture(texture);
    return difference;
  });
  await check("GL state restored after a host sort in the caller's context", async () => {
    set();
    const before = snapshot();
    const keys = Float32Array.from({ length: 3000 }, (_, i) => Math.sin(i) * 1000);
    const sorted = await sorter.sort(keys);
    const difference = compare(before, snapshot());
    const expected = keys.slice().sort();
    return difference ?? firstDifference(sorted, expected) ?? undefined;
  });
  gl.bindBuffer(gl.PIXEL_UNPACK_BUFFER, null);
  gl.pixelStorei(gl.UNPACK_ROW_LENGTH, 0); gl.pixelStorei(gl.UNPACK_ALIGNMENT, 4); gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
  gl.useProgram(null);
  gl.bindFramebuffer(gl.FRAMEBUFFER, null);
}

async function limitTests(gl, sorter) {
  const { maxTextureSize, maxKeys } = await sorter.limits();
  await check(`limits: largest texture side ${maxTextureSize}`, () =>
    maxTextureSize === Math.min(gl.getParameter(gl.MAX_TEXTURE_SIZE), ...gl.getParameter(gl.MAX_VIEWPORT_DIMS))
      ? undefined : `MAX_TEXTURE_SIZE ${gl.getParameter(gl.MAX_TEXTURE_SIZE)}`);
  await rejects(`sort of ${maxKeys + 1} keys (one past the largest texture)`,
    () => sort(new Uint32Array(maxKeys + 1)), /do not fit this context's largest texture/, RangeError);
  await rejects(`argsort of ${maxKeys + 1} keys`,
    () => argsort(new Float32Array(maxKeys + 1)), /do not fit this context's largest texture/, RangeError);
  await rejects(`1D sort of ${maxTextureSize + 1} keys (one past one row)`,
    () => sort(new Int32Array(maxTextureSize + 1), { layout: "1d" }), /in one row/, RangeError);
  await check(`1D sort of ${maxTextureSize} keys (one full row)`, async () => {
    const keys = new Int32Array(keyBits(maxTextureSize, "i32", 3).buffer);
    return firstDifference(await sort(keys, { layout: "1d" }), keys.slice().sort()) ?? undefined;
  });
  await check("2D layout asked for at 1000 keys", async () => {
    const keys = new Uint32Array(keyBits(1000, "u32", 4).buffer);
    return firstDifference(await sort(keys, { layout: "2d" }), keys.slice().sort()) ?? undefined;
  });
  await rejects(`sortTexture of a ${maxTextureSize + 1} x 1 texture`,
    () => sorter.sortTexture(gl.createTexture(), { width: maxTextureSize + 1, keyType: "u32" }),
    /past this context's largest side/, RangeError);
  await rejects("sort of a Float64Array", () => sort(new Float64Array(4)), /Uint32Array, Int32Array or Float32Array/, TypeError);
  await rejects("sortTexture with count above width x height",
    () => sorter.sortTexture(gl.createTexture(), { width: 4, height: 4, count: 17 }), /invalid argument/);
}

async function lostContextTests() {
  const canvas = document.createElement("canvas");
  const gl = canvas.getContext("webgl2");
  const sorter = new Sorter(gl);
  const keys = Uint32Array.from({ length: 5000 }, (_, i) => (i * 2654435761) >>> 0);
  await check("a sort before the loss", async () => firstDifference(await sorter.sort(keys), keys.slice().sort()) ?? undefined);
  const texture = makeTexture(gl, "records", new Uint32Array(64 * 4), 64, 1);
  let events = 0;
  canvas.addEventListener("webglcontextlost", () => ++events);
  gl.getExtension("WEBGL_lose_context").loseContext();
  await rejects("sort after WEBGL_lose_context", () => sorter.sort(keys), /context was lost/);
  await rejects("argsort after WEBGL_lose_context", () => sorter.argsort(keys), /context was lost/);
  await rejects("sortTexture after WEBGL_lose_context",
    () => sorter.sortTexture(texture, { width: 64, keyType: "u32" }), /context was lost/);
  await new Promise((resolve) => setTimeout(resolve, 50));
  await check("webglcontextlost seen", () => (events === 1 && sorter.lost ? undefined : `events ${events}, lost ${sorter.lost}`));
  // A loss in the middle of a call: the context goes between upload and read back.
  const canvas2 = document.createElement("canvas");
  const gl2 = canvas2.getContext("webgl2");
  const sorter2 = new Sorter(gl2);
  const extension = gl2.getExtension("WEBGL_lose_context");
  const readPixels = gl2.readPixels.bind(gl2);
  gl2.readPixels = (...args) => { extension.loseContext(); return readPixels(...args); };
  await rejects("a loss during the sort", () => sorter2.sort(keys), /context was lost/);
  sorter.dispose();
  sorter2.dispose();
  await check("sort() still works (its own context)", async () => firstDifference(await sort(keys), keys.slice().sort()) ?? undefined);
}

async function main() {
  const started = performance.now();
  const canvas = document.createElement("canvas");
  const gl = canvas.getContext("webgl2");
  const sorter = new Sorter(gl);
  await sortTests();
  await argsortTests();
  await textureTests(gl, sorter);
  await stateTests(gl, sorter);
  await limitTests(gl, sorter);
  await lostContextTests();
  sorter.dispose();
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  lines.push(`browser tests: ${passed} passed, ${failed} failed in ${seconds} s (${gl.getParameter(gl.RENDERER)})`);
  document.getElementById("status").textContent = failed ? "failed" : "passed";
  await fetch("/report", { method: "POST", body: JSON.stringify({ passed, failed, lines }) });
}

main().catch(async (error) => {
  lines.push(`FAIL the test page: ${error && error.stack ? error.stack : error}`);
  await fetch("/report", { method: "POST", body: JSON.stringify({ passed, failed: failed + 1, lines }) });
});
