// post.js: appended inside Emscripten's module factory, where its GL object
// (context and object tables) and the heap are in scope. bitonic.mjs needs
// them to sort in a WebGL2 context it did not create through Emscripten.
Module['bitonicGL'] = {
  // A WebGL2 context of the page's, given a handle of Emscripten's GL layer.
  registerContext: function (gl) {
    return GL.registerContext(gl, { majorVersion: 2, minorVersion: 0, enableExtensionsByDefault: 0 });
  },
  makeCurrent: function (handle) { return GL.makeContextCurrent(handle); },
  deleteContext: function (handle) {
    if (GL.currentContext === GL.contexts[handle]) GL.makeContextCurrent(0);
    GL.contexts[handle] = null;
  },
  // A caller's WebGLTexture under a name of the GL layer's table, for one call.
  nameTexture: function (texture) {
    var id = GL.getNewId(GL.textures);
    GL.textures[id] = texture;
    return id;
  },
  forgetTexture: function (id) { GL.textures[id] = null; },
  heapU32: function () { return HEAPU32; },
};
