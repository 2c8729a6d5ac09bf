#!/bin/sh
# build.sh: builds the browser module, web/dist/bitonic.mjs (the JavaScript API)
# over web/dist/bitonic_gl.mjs and bitonic_gl.wasm, which Emscripten compiles
# from the gles backend's own sources (src/gles/gles_sorter.c and the core
# schedule) plus the browser's GL table and host layer in web/src. Needs emcc
# (Debian's emscripten package); run from anywhere.
set -eu
web=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$web")
dist="$web/dist"
mkdir -p "$dist"
# Debian's emcc runs its JavaScript optimiser under node, which must find
# Debian's acorn (node-acorn) even when the node on PATH does not look there.
export NODE_PATH="${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs"
cflags="-std=c11 -O2 -Wall -Wextra -Wshadow -Wno-unused-parameter -Werror
    -I$root/include -I$root/src/core -I$root/src/gles"
exports="_malloc,_free,_bw_create,_bw_destroy,_bw_max_size,_bw_texture_size,_bw_draw_count,_bw_sort_host,_bw_sort_texture"
# shellcheck disable=SC2086
emcc $cflags \
    "$root/src/gles/gles_sorter.c" "$root/src/gles/gles_host.c" "$root/src/core/schedule.c" \
    "$web/src/web_gl_table.c" "$web/src/web_sort.c" \
    -sMAX_WEBGL_VERSION=2 -sMIN_WEBGL_VERSION=2 -sMODULARIZE -sEXPORT_ES6 -sEXPORT_NAME=createBitonicGL \
    -sENVIRONMENT=web -sALLOW_MEMORY_GROWTH -sMAXIMUM_MEMORY=4GB -sEXPORTED_FUNCTIONS="$exports" \
    --post-js "$web/src/post.js" \
    -o "$dist/bitonic_gl.mjs"
cp "$web/src/bitonic.mjs" "$dist/bitonic.mjs"
echo "web: built $dist/bitonic.mjs"
