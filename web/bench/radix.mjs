// radix.mjs: a least-significant-digit radix sort of Uint32Array keys in plain
// JavaScript (four passes of 8 bits), the CPU sort that WebGL2 splat viewers
// run in a worker; written for the comparison in docs/WEB.md.
export function radixSortU32(keys) {
  const count = keys.length;
  let source = keys.slice();
  let target = new Uint32Array(count);
  const histogram = new Uint32Array(256);
  for (let shift = 0; shift < 32; shift += 8) {
    histogram.fill(0);
    for (let i = 0; i < count; ++i) ++histogram[(source[i] >>> shift) & 255];
    let sum = 0;
    for (let d = 0; d < 256; ++d) {
      const c = histogram[d];
      histogram[d] = sum;
      sum += c;
    }
    for (let i = 0; i < count; ++i) {
      const key = source[i];
      target[histogram[(key >>> shift) & 255]++] = key;
    }
    const swap = source;
    source = target;
    target = swap;
  }
  return source;
}
