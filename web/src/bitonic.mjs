// bitonic.mjs: the browser's API over the WebGL2 build of the gles backend
// (bitonic_gl.mjs and .wasm, compiled from src/gles/gles_sorter.c). sort() and
// argsort() sort typed arrays in a hidden WebGL2 context of the module's;
// Sorter sorts in a context the caller owns, textures included, with no round
// trip through the CPU. Every sort returns a promise, rejected (never resolved
// with a wrong result) when the context is lost or the size is past its limit.
import createBitonicGL from "./bitonic_gl.mjs";

const wasm = await createBitonicGL();
const bridge = wasm.bitonicGL;

// bitonic_status (include/bitonic.h), in its order.
const STATUS = [
  "success", "invalid argument", "out of host memory", "out of GPU memory",
  "too large for the context's largest texture", "device not found", "unsupported",
  "Vulkan unavailable", "validation layer missing", "device lost", "Vulkan error",
  "no WebGL2 context", "a WebGL call failed", "communication error",
];
const TOO_LARGE = 4;

const KEY_TYPES = { u32: 0, i32: 1, f32: 2 };
const TEXELS = { keys: 0, pairs: 1, records: 2 };
const LAYOUTS = { auto: 0, "1d": 1, "2d": 2 };

function keyTypeOf(array) {
  if (array instanceof Uint32Array) return "u32";
  if (array instanceof Int32Array) return "i32";
  if (array instanceof Float32Array) return "f32";
  throw new TypeError("bitonic: sort and argsort take a Uint32Array, Int32Array or Float32Array");
}

function lostError() {
  return new Error("bitonic: the WebGL2 context was lost; no result (make a new Sorter once it is restored)");
}

function statusError(status, what) {
  const message = `bitonic: ${what} failed: ${STATUS[status] ?? "status " + status}`;
  return status === TOO_LARGE ? new RangeError(message) : new Error(message);
}

// The state a call may change and puts back, read with the caller's own
// objects (Emscripten's GL layer knows only the names it made). The C sorter
// restores the same list; doing it here too keeps the caller's objects.
function saveState(gl) {
  const caps = [gl.BLEND, gl.DEPTH_TEST, gl.STENCIL_TEST, gl.SCISSOR_TEST, gl.CULL_FACE, gl.RASTERIZER_DISCARD];
  const pixelNames = [gl.PACK_ALIGNMENT, gl.UNPACK_ALIGNMENT, gl.PACK_ROW_LENGTH, gl.PACK_SKIP_ROWS,
    gl.PACK_SKIP_PIXELS, gl.UNPACK_ROW_LENGTH, gl.UNPACK_IMAGE_HEIGHT, gl.UNPACK_SKIP_ROWS,
    gl.UNPACK_SKIP_PIXELS, gl.UNPACK_SKIP_IMAGES, gl.UNPACK_FLIP_Y_WEBGL, gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL];
  const activeTexture = gl.getParameter(gl.ACTIVE_TEXTURE);
  gl.activeTexture(gl.TEXTURE0);
  const state = {
    program: gl.getParameter(gl.CURRENT_PROGRAM),
    drawFramebuffer: gl.getParameter(gl.DRAW_FRAMEBUFFER_BINDING),
    readFramebuffer: gl.getParameter(gl.READ_FRAMEBUFFER_BINDING),
    viewport: gl.getParameter(gl.VIEWPORT),
    activeTexture,
    texture: gl.getParameter(gl.TEXTURE_BINDING_2D),
    sampler: gl.getParameter(gl.SAMPLER_BINDING),
    vertexArray: gl.getParameter(gl.VERTEX_ARRAY_BINDING),
    colorMask: gl.getParameter(gl.COLOR_WRITEMASK),
    packBuffer: gl.getParameter(gl.PIXEL_PACK_BUFFER_BINDING),
    unpackBuffer: gl.getParameter(gl.PIXEL_UNPACK_BUFFER_BINDING),
    caps: caps.map((cap) => [cap, gl.isEnabled(cap)]),
    pixel: pixelNames.map((name) => [name, gl.getParameter(name)]),
  };
  // Host sorts upload from and read into wasm memory: no pixel buffers, tight rows.
  gl.bindBuffer(gl.PIXEL_PACK_BUFFER, null);
  gl.bindBuffer(gl.PIXEL_UNPACK_BUFFER, null);
  for (const [name] of state.pixel) {
    const fresh = name === gl.PACK_ALIGNMENT || name === gl.UNPACK_ALIGNMENT ? 4 : 0;
    gl.pixelStorei(name, name === gl.UNPACK_FLIP_Y_WEBGL || name === gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL ? false : fresh);
  }
  return state;
}

function restoreState(gl, state) {
  gl.useProgram(state.program);
  gl.bindFramebuffer(gl.DRAW_FRAMEBUFFER, state.drawFramebuffer);
  gl.bindFramebuffer(gl.READ_FRAMEBUFFER, state.readFramebuffer);
  const [x, y, w, h] = state.viewport;
  gl.viewport(x, y, w, h);
  gl.activeTexture(gl.TEXTURE0);
  gl.bindTexture(gl.TEXTURE_2D, state.texture);
  gl.bindSampler(0, state.sampler);
  gl.activeTexture(state.activeTexture);
  gl.bindVertexArray(state.vertexArray);
  const [r, g, b, a] = state.colorMask;
  gl.colorMask(r, g, b, a);
  gl.bindBuffer(gl.PIXEL_PACK_BUFFER, state.packBuffer);
  gl.bindBuffer(gl.PIXEL_UNPACK_BUFFER, state.unpackBuffer);
  for (const [cap, on] of state.caps) on ? gl.enable(cap) : gl.disable(cap);
  for (const [name, value] of state.pixel) gl.pixelStorei(name, value);
}

// The ordered bits of key_transform.h, for the reference checks of the tests
// and the demo: unsigned order of the result is the sort's order.
export function orderedBits(bits, keyType) {
  if (keyType === "i32") return (bits ^ 0x80000000) >>> 0;
  if (keyType !== "f32") return bits >>> 0;
  // Negative NaNs wrap past +inf to the top, as key_transform.h's select does.
  return (((bits >>> 31 ? ~bits : bits | 0x80000000) >>> 0) - 0x007fffff) >>> 0;
}

/** Sorts in one WebGL2 context: the caller's (new Sorter(gl)) or a hidden one
 * of the module's (new Sorter()). */
export class Sorter {
  /**
   * @param {WebGL2RenderingContext} [gl] the caller's context; omitted, the
   *   sorter makes its own on an OffscreenCanvas (or a detached canvas).
   * @param {{stepsPerDraw?: number, checkEveryPass?: boolean}} [options]
   */
  constructor(gl, options = {}) {
    if (gl === undefined || gl === null) {
      const canvas = typeof OffscreenCanvas === "function" ? new OffscreenCanvas(1, 1) : document.createElement("canvas");
      gl = canvas.getContext("webgl2", { antialias: false, depth: false, stencil: false, alpha: false });
      if (!gl) throw new Error("bitonic: this browser gives no WebGL2 context");
    }
    if (typeof WebGL2RenderingContext === "function" && !(gl instanceof WebGL2RenderingContext))
      throw new TypeError("bitonic: Sorter needs a WebGL2RenderingContext");
    this.gl = gl;
    this.stepsPerDraw = options.stepsPerDraw ?? 3;
    this.checkEveryPass = !!options.checkEveryPass;
    this._handle = 0;    // Emscripten's name for the context
    this._sorter = 0;    // the web_sorter of web/src/web_sort.c
    this._lost = gl.isContextLost();
    this._onLost = () => { this._lost = true; };
    if (gl.canvas && gl.canvas.addEventListener) gl.canvas.addEventListener("webglcontextlost", this._onLost);
  }

  /** Whether the context is gone (lost, or the sorter disposed): every later sort rejects. */
  get lost() {
    return this._lost || this.gl.isContextLost();
  }

  // Runs body(sorterPointer) with the context current and the caller's state
  // saved, and throws on a loss seen at any point: WebGL calls on a lost
  // context do nothing, so a result read then would be garbage.
  _run(body) {
    if (this.lost) throw lostError();
    const gl = this.gl;
    if (!this._handle) this._handle = bridge.registerContext(gl);
    bridge.makeCurrent(this._handle);
    const state = saveState(gl);
    let value;
    try {
      if (!this._sorter) {
        const out = wasm._malloc(4);
        const status = wasm._bw_create(this.stepsPerDraw, this.checkEveryPass ? 1 : 0, out);
        this._sorter = bridge.heapU32()[out >>> 2];
        wasm._free(out);
        if (this.lost) throw lostError();
        if (status !== 0) throw statusError(status, "making the sorter");
      }
      value = body(this._sorter);
    } catch (error) {
      if (this.lost) throw lostError();
      throw error;
    } finally {
      if (!gl.isContextLost()) restoreState(gl, state);
      bridge.makeCurrent(0);
    }
    if (this.lost) throw lostError();
    return value;
  }

  /** The context's limits: the largest texture side that is also a viewport
   * side, and the most keys a sort takes (that side squared). */
  async limits() {
    const side = this._run((sorter) => wasm._bw_max_size(sorter));
    return { maxTextureSize: side, maxKeys: side * side };
  }

  /** Sorts a Uint32Array, Int32Array or Float32Array; resolves to a new sorted
   * array of the same type. The input is not changed. */
  async sort(array, { descending = false, layout = "auto" } = {}) {
    const keyType = keyTypeOf(array);
    const bits = new Uint32Array(array.buffer, array.byteOffset, array.length);
    const sorted = this._host(bits, 1, keyType, descending, layout);
    return new array.constructor(sorted.buffer);
  }

  /** Indices that sort the array: resolves to a Uint32Array. The network
   * orders equal keys by index, so the result is stable whatever `stable`
   * says (the option is taken for code that passes it). */
  async argsort(array, { descending = false, stable = true, layout = "auto" } = {}) {
    void stable;
    const keyType = keyTypeOf(array);
    const count = array.length;
    this._run((sorter) => this._checkSize(sorter, count, layout));  // before the pairs take memory
    const bits = new Uint32Array(array.buffer, array.byteOffset, count);
    const pairs = new Uint32Array(count * 2);
    for (let i = 0; i < count; ++i) {
      pairs[2 * i] = bits[i];
      pairs[2 * i + 1] = i;
    }
    const sorted = this._host(pairs, 2, keyType, descending, layout);
    const indices = new Uint32Array(count);
    for (let i = 0; i < count; ++i) indices[i] = sorted[2 * i + 1];
    return indices;
  }

  // Throws a RangeError when count keys do not fit the context's textures.
  _checkSize(sorter, count, layout) {
    if (!(layout in LAYOUTS)) throw new TypeError(`bitonic: layout is "auto", "1d" or "2d", not ${layout}`);
    const size = wasm._malloc(8);
    const fits = count > 0xffffffff ? TOO_LARGE : wasm._bw_texture_size(sorter, count, LAYOUTS[layout], size);
    wasm._free(size);
    if (fits === TOO_LARGE) {
      const side = wasm._bw_max_size(sorter);
      throw new RangeError(`bitonic: ${count} keys do not fit this context's largest texture ` +
        `(${side} x ${side} = ${side * side} keys${layout === "1d" ? `, ${side} in one row` : ""})`);
    }
    if (fits !== 0) throw statusError(fits, "sizing the texture");
  }

  // Packed texels (words each) through wasm memory: upload, network, read back.
  _host(texels, words, keyType, descending, layout) {
    const count = texels.length / words;
    return this._run((sorter) => {
      this._checkSize(sorter, count, layout);
      if (count <= 1) return texels.slice();
      const bytes = texels.length * 4;
      const pointer = wasm._malloc(bytes + 4);
      if (!pointer) throw statusError(2, "allocating wasm memory");
      try {
        bridge.heapU32().set(texels, pointer >>> 2);
        const draws = pointer + bytes;
        const status = wasm._bw_sort_host(sorter, pointer, count, words === 1 ? TEXELS.keys : TEXELS.pairs,
          KEY_TYPES[keyType], descending ? 1 : 0, LAYOUTS[layout], draws);
        if (this.lost) throw lostError();
        if (status !== 0) throw statusError(status, "the sort");
        this.lastDraws = bridge.heapU32()[draws >>> 2];
        return bridge.heapU32().slice(pointer >>> 2, (pointer >>> 2) + texels.length);
      } finally {
        wasm._free(pointer);
      }
    });
  }

  /**
   * Sorts a texture the caller owns, in place, in the caller's context: no
   * copy to the CPU. The texture is TEXTURE_2D level 0, width x height texels,
   * the first `count` of them (row-major: key i at (i % width, i / width)) sorted.
   *  - texels "records" (RGBA32UI): by `component` (0..3) read as keyType
   *    ("u32", "i32", "f32"), the whole texel moving with it; ties by the other
   *    components as u32 in r, g, b, a order;
   *  - "keys" (R32UI) and "pairs" (RG32UI: key, value; ties by value).
   * A texture of one row is the 1D layout; more rows the 2D layout.
   * Resolves to { draws } once the draws are issued (they run in GL order).
   */
  async sortTexture(texture, { width, height = 1, count = width * height, component = 0, keyType = "f32",
    descending = false, texels = "records" } = {}) {
    if (!(texture instanceof WebGLTexture)) throw new TypeError("bitonic: sortTexture takes a WebGLTexture");
    if (!(keyType in KEY_TYPES)) throw new TypeError(`bitonic: keyType is "u32", "i32" or "f32", not ${keyType}`);
    if (!(texels in TEXELS)) throw new TypeError(`bitonic: texels is "records", "keys" or "pairs", not ${texels}`);
    return this._run((sorter) => {
      const name = bridge.nameTexture(texture);
      const out = wasm._malloc(4);
      try {
        const status = wasm._bw_sort_texture(sorter, name, width >>> 0, height >>> 0, count >>> 0, TEXELS[texels],
          KEY_TYPES[keyType], descending ? 1 : 0, component >>> 0, out);
        if (this.lost) throw lostError();
        if (status === TOO_LARGE) {
          const side = wasm._bw_max_size(sorter);
          throw new RangeError(`bitonic: a ${width} x ${height} texture is past this context's largest side (${side})`);
        }
        if (status !== 0) throw statusError(status, "the texture sort");
        return { draws: bridge.heapU32()[out >>> 2] };
      } finally {
        wasm._free(out);
        bridge.forgetTexture(name);
      }
    });
  }

  /** Frees the programs, textures and framebuffers (the context stays the caller's). */
  dispose() {
    if (this._sorter && !this.gl.isContextLost()) {
      bridge.makeCurrent(this._handle);
      wasm._bw_destroy(this._sorter);
      bridge.makeCurrent(0);
    }
    this._sorter = 0;
    if (this._handle) bridge.deleteContext(this._handle);
    this._handle = 0;
    if (this.gl.canvas && this.gl.canvas.removeEventListener)
      this.gl.canvas.removeEventListener("webglcontextlost", this._onLost);
    this._lost = true;
  }
}

// The hidden context of sort() and argsort(): made on the first call, and made
// again after a loss (the lost call itself rejects).
let shared = null;

function sharedSorter() {
  if (!shared || shared.lost) {
    if (shared) shared.dispose();
    shared = new Sorter();
  }
  return shared;
}

/** Sorts a Uint32Array, Int32Array or Float32Array in the module's own WebGL2
 * context; resolves to a new array of the same type. Floats: -inf < ... < -0 <
 * +0 < ... < +inf < NaN (as Float32Array.prototype.sort); descending is the exact
 * reverse. options.sorter: sort in that Sorter's context instead. */
export async function sort(array, options = {}) {
  return (options.sorter ?? sharedSorter()).sort(array, options);
}

/** The indices that sort the array (a stable order), as a Uint32Array. */
export async function argsort(array, options = {}) {
  return (options.sorter ?? sharedSorter()).argsort(array, options);
}
