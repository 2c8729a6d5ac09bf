// splats.mjs: a splat-viewer-like scene with no CPU sort. Each frame a pass
// writes one RGBA32UI record per point (view depth as f32 bits, point index),
// Sorter.sortTexture orders the records far to near on the GPU, and the points
// are drawn in that order with alpha blending, each vertex fetching its record
// and then its position. The sort's GPU time (timer query where the browser
// has one) is on screen. ?n= sets the point count; ?report=1 posts a check of
// the first frame's order to /report (web/test.sh).
import { Sorter, orderedBits } from "../dist/bitonic.mjs";

const params = new URLSearchParams(location.search);
const count = Math.max(2, Number(params.get("n") ?? 1 << 15));
const canvas = document.getElementById("view");
const hud = document.getElementById("hud");
const gl = canvas.getContext("webgl2", { antialias: false, preserveDrawingBuffer: true });

function program(vertexSource, fragmentSource) {
  const p = gl.createProgram();
  for (const [type, source] of [[gl.VERTEX_SHADER, vertexSource], [gl.FRAGMENT_SHADER, fragmentSource]]) {
    const shader = gl.createShader(type);
    gl.shaderSource(shader, "#version 300 es\nprecision highp float;\nprecision highp int;\n" + source);
    gl.compileShader(shader);
    if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(shader));
    gl.attachShader(p, shader);
  }
  gl.linkProgram(p);
  if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(p));
  return p;
}

// Row-major records, key i at (i % width, i / width): one row while it fits (1D), else rows of 1024 (2D).
const width = Math.min(count, 1024), height = Math.ceil(count / width);

// Points of a spiral galaxy: (x, y, z, hue) in an RGBA32F texture of the same shape.
const points = new Float32Array(width * height * 4);
let seed = 7;
const random = () => { seed = (seed * 1664525 + 1013904223) >>> 0; return seed / 4294967296; };
for (let i = 0; i < count; ++i) {
  const arm = i % 3, t = random();
  const radius = 0.1 + 0.9 * Math.sqrt(t);
  const angle = arm * 2.094 + radius * 5.0 + (random() - 0.5) * 0.6;
  points.set([radius * Math.cos(angle), (random() - 0.5) * 0.12 * (1.2 - radius), radius * Math.sin(angle), (arm + t) / 3], i * 4);
}
function texture(format, data) {
  const t = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, t);
  gl.texStorage2D(gl.TEXTURE_2D, 1, format, width, height);
  if (data) gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, width, height, gl.RGBA, gl.FLOAT, data);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
  return t;
}
const positions = texture(gl.RGBA32F, points);
const records = texture(gl.RGBA32UI, null);
const recordFramebuffer = gl.createFramebuffer();
gl.bindFramebuffer(gl.FRAMEBUFFER, recordFramebuffer);
gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, records, 0);
gl.bindFramebuffer(gl.FRAMEBUFFER, null);

const shared = `
uniform highp sampler2D u_positions;
uniform mat4 u_view;
uniform int u_width;
vec4 point(int i) { return texelFetch(u_positions, ivec2(i % u_width, i / u_width), 0); }
`;
// The depth pass: one fragment per point writes (depth bits, index).
const depthPass = program(
  "void main() { vec2 c = vec2(float((gl_VertexID & 1) << 2), float((gl_VertexID & 2) << 1)) - 1.0; gl_Position = vec4(c, 0.0, 1.0); }",
  shared + `
out uvec4 o_record;
void main() {
  int i = int(gl_FragCoord.y) * u_width + int(gl_FragCoord.x);
  vec4 view = u_view * vec4(point(i).xyz, 1.0);
  o_record = uvec4(floatBitsToUint(-view.z), uint(i), 0u, 0u);
}`);
// The points, in record order: far ones first, near ones blended over them.
const drawPass = program(shared + `
uniform highp usampler2D u_records;
uniform mat4 u_projection;
out vec4 v_colour;
void main() {
  uvec4 record = texelFetch(u_records, ivec2(gl_VertexID % u_width, gl_VertexID / u_width), 0);
  vec4 p = point(int(record.y));
  vec4 view = u_view * vec4(p.xyz, 1.0);
  gl_Position = u_projection * view;
  gl_PointSize = clamp(30.0 / -view.z, 2.0, 24.0);
  vec3 hue = 0.55 + 0.45 * cos(6.2832 * (p.w + vec3(0.0, 0.33, 0.67)));
  v_colour = vec4(mix(hue, vec3(1.0), 0.25 / (0.2 + length(p.xz))), 0.35);
}`, `
in vec4 v_colour;
out vec4 o_colour;
void main() {
  vec2 d = gl_PointCoord * 2.0 - 1.0;
  float falloff = exp(-3.0 * dot(d, d));
  o_colour = vec4(v_colour.rgb, v_colour.a * falloff);
}`);
const vertexArray = gl.createVertexArray();

function perspective(aspect) {
  const f = 1 / Math.tan(0.45), near = 0.1, far = 20;
  return new Float32Array([f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, (far + near) / (near - far), -1, 0, 0, 2 * far * near / (near - far), 0]);
}
function view(time) {
  const a = time * 0.25, tilt = 0.55, distance = 2.6;
  const ca = Math.cos(a), sa = Math.sin(a), ct = Math.cos(tilt), st = Math.sin(tilt);
  // Rotate about y, tilt about x, move back along z (column-major).
  return new Float32Array([ca, st * sa, -ct * sa, 0, 0, ct, st, 0, sa, -st * ca, ct * ca, 0, 0, 0, -distance, 1]);
}

const sorter = new Sorter(gl);
const timer = gl.getExtension("EXT_disjoint_timer_query_webgl2");
const pending = [];
let sortMs = null, frames = 0, checked = null;

async function frame(time) {
  const viewMatrix = view(time / 1000);
  gl.bindVertexArray(vertexArray);
  gl.bindFramebuffer(gl.FRAMEBUFFER, recordFramebuffer);
  gl.viewport(0, 0, width, height);
  gl.disable(gl.BLEND);
  gl.useProgram(depthPass);
  gl.activeTexture(gl.TEXTURE0);
  gl.bindTexture(gl.TEXTURE_2D, positions);
  gl.uniform1i(gl.getUniformLocation(depthPass, "u_positions"), 0);
  gl.uniform1i(gl.getUniformLocation(depthPass, "u_width"), width);
  gl.uniformMatrix4fv(gl.getUniformLocation(depthPass, "u_view"), false, viewMatrix);
  gl.drawArrays(gl.TRIANGLES, 0, 3);

  const query = timer ? gl.createQuery() : null;
  if (query) gl.beginQuery(timer.TIME_ELAPSED_EXT, query);
  const started = performance.now();
  const { draws } = await sorter.sortTexture(records, { width, height, count, component: 0, keyType: "f32", descending: true });
  if (query) {
    gl.endQuery(timer.TIME_ELAPSED_EXT);
    pending.push(query);
  } else {
    sortMs = performance.now() - started;  // issue time only: no timer query here
  }

  gl.bindFramebuffer(gl.FRAMEBUFFER, null);
  gl.viewport(0, 0, canvas.width, canvas.height);
  gl.clearColor(0.06, 0.06, 0.09, 1);
  gl.clear(gl.COLOR_BUFFER_BIT);
  gl.enable(gl.BLEND);
  gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA);
  gl.useProgram(drawPass);
  gl.activeTexture(gl.TEXTURE0);
  gl.bindTexture(gl.TEXTURE_2D, positions);
  gl.activeTexture(gl.TEXTURE1);
  gl.bindTexture(gl.TEXTURE_2D, records);
  gl.uniform1i(gl.getUniformLocation(drawPass, "u_positions"), 0);
  gl.uniform1i(gl.getUniformLocation(drawPass, "u_records"), 1);
  gl.uniform1i(gl.getUniformLocation(drawPass, "u_width"), width);
  gl.uniformMatrix4fv(gl.getUniformLocation(drawPass, "u_view"), false, viewMatrix);
  gl.uniformMatrix4fv(gl.getUniformLocation(drawPass, "u_projection"), false, perspective(canvas.width / canvas.height));
  gl.drawArrays(gl.POINTS, 0, count);
  gl.activeTexture(gl.TEXTURE0);

  while (pending.length && gl.getQueryParameter(pending[0], gl.QUERY_RESULT_AVAILABLE)) {
    const query0 = pending.shift();
    if (!gl.getParameter(timer.GPU_DISJOINT_EXT)) sortMs = gl.getQueryParameter(query0, gl.QUERY_RESULT) / 1e6;
    gl.deleteQuery(query0);
  }
  ++frames;
  if (checked === null) checked = checkOrder();
  return draws;
}

function show(draws) {
  hud.textContent = `${count} points, ${width} x ${height} records (${height > 1 ? "2D" : "1D"}), sorted by depth on the GPU every frame\n` +
    `sort: ${sortMs === null ? "…" : sortMs.toFixed(2) + " ms"} (${timer ? "GPU timer query" : "time to issue the draws"}), ` +
    `${draws} draws, frame ${frames}\nfirst frame back to front: ${checked ? "yes" : "NO"}`;
}

// Reads the sorted records of the first frame once: depths must not increase.
function checkOrder() {
  const framebuffer = gl.createFramebuffer();
  gl.bindFramebuffer(gl.READ_FRAMEBUFFER, framebuffer);
  gl.framebufferTexture2D(gl.READ_FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, records, 0);
  const texels = new Uint32Array(width * height * 4);
  gl.readPixels(0, 0, width, height, gl.RGBA_INTEGER, gl.UNSIGNED_INT, texels);
  gl.bindFramebuffer(gl.READ_FRAMEBUFFER, null);
  gl.deleteFramebuffer(framebuffer);
  const seen = new Uint8Array(count);
  let ok = true;
  for (let i = 0; i < count; ++i) {
    if (i > 0 && orderedBits(texels[i * 4], "f32") > orderedBits(texels[i * 4 - 4], "f32")) ok = false;
    if (texels[i * 4 + 1] >= count || seen[texels[i * 4 + 1]]++) ok = false;
  }
  if (params.get("report"))
    fetch("/report", { method: "POST", body: JSON.stringify({ passed: ok ? 1 : 0, failed: ok ? 0 : 1,
      lines: [`${ok ? "ok" : "FAIL"} demo: ${count} points sorted back to front on the GPU (${height > 1 ? "2D" : "1D"} records)`] }) });
  return ok;
}

async function loop(time) {
  try {
    show(await frame(time));
    requestAnimationFrame(loop);
  } catch (error) {
    hud.textContent = `stopped: ${error.message}`;
  }
}
canvas.addEventListener("webglcontextlost", (event) => { event.preventDefault(); });
requestAnimationFrame(loop);
