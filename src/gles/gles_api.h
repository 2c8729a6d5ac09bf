/* gles_api.h: the OpenGL ES and EGL entry points the GLES backend calls, loaded
 * at run time (dlopen of glvnd's libGLESv2.so.2 and libEGL.so.1) into tables
 * that hang off the sorter and the context. Linking them instead would make
 * every program that links the library need EGL at start-up, even one that
 * only sorts on Vulkan or the CPU; loaded, a machine without them gets
 * BITONIC_ERROR_GLES_UNAVAILABLE from the gles device and nothing else changes. */
#ifndef BITONIC_GLES_API_H
#define BITONIC_GLES_API_H

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>

#include "bitonic.h"

#define BITONIC_GL_FUNCTIONS(X)                                                                                   \
    X(PFNGLACTIVETEXTUREPROC, glActiveTexture) X(PFNGLATTACHSHADERPROC, glAttachShader)                           \
    X(PFNGLBEGINQUERYPROC, glBeginQuery) X(PFNGLBINDFRAMEBUFFERPROC, glBindFramebuffer)                           \
    X(PFNGLBINDSAMPLERPROC, glBindSampler) X(PFNGLBINDTEXTUREPROC, glBindTexture)                                 \
    X(PFNGLBINDVERTEXARRAYPROC, glBindVertexArray) X(PFNGLCHECKFRAMEBUFFERSTATUSPROC, glCheckFramebufferStatus)  \
    X(PFNGLCOLORMASKPROC, glColorMask) X(PFNGLCOMPILESHADERPROC, glCompileShader)                                 \
    X(PFNGLCREATEPROGRAMPROC, glCreateProgram) X(PFNGLCREATESHADERPROC, glCreateShader)                           \
    X(PFNGLDELETEFRAMEBUFFERSPROC, glDeleteFramebuffers) X(PFNGLDELETEPROGRAMPROC, glDeleteProgram)               \
    X(PFNGLDELETEQUERIESPROC, glDeleteQueries) X(PFNGLDELETESAMPLERSPROC, glDeleteSamplers)                       \
    X(PFNGLDELETESHADERPROC, glDeleteShader) X(PFNGLDELETETEXTURESPROC, glDeleteTextures)                         \
    X(PFNGLDELETEVERTEXARRAYSPROC, glDeleteVertexArrays) X(PFNGLDISABLEPROC, glDisable)                           \
    X(PFNGLDRAWARRAYSPROC, glDrawArrays) X(PFNGLENABLEPROC, glEnable) X(PFNGLENDQUERYPROC, glEndQuery)            \
    X(PFNGLFINISHPROC, glFinish) X(PFNGLFRAMEBUFFERTEXTURE2DPROC, glFramebufferTexture2D)                         \
    X(PFNGLGENFRAMEBUFFERSPROC, glGenFramebuffers) X(PFNGLGENQUERIESPROC, glGenQueries)                           \
    X(PFNGLGENSAMPLERSPROC, glGenSamplers) X(PFNGLGENTEXTURESPROC, glGenTextures)                                 \
    X(PFNGLGENVERTEXARRAYSPROC, glGenVertexArrays) X(PFNGLGETBOOLEANVPROC, glGetBooleanv)                         \
    X(PFNGLGETERRORPROC, glGetError) X(PFNGLGETINTEGERVPROC, glGetIntegerv)                                       \
    X(PFNGLGETPROGRAMIVPROC, glGetProgramiv) X(PFNGLGETSHADERIVPROC, glGetShaderiv)                               \
    X(PFNGLGETSTRINGPROC, glGetString) X(PFNGLGETUNIFORMLOCATIONPROC, glGetUniformLocation)                       \
    X(PFNGLISENABLEDPROC, glIsEnabled) X(PFNGLLINKPROGRAMPROC, glLinkProgram)                                     \
    X(PFNGLPIXELSTOREIPROC, glPixelStorei) X(PFNGLREADPIXELSPROC, glReadPixels)                                   \
    X(PFNGLSAMPLERPARAMETERIPROC, glSamplerParameteri) X(PFNGLSHADERSOURCEPROC, glShaderSource)                   \
    X(PFNGLTEXSTORAGE2DPROC, glTexStorage2D) X(PFNGLTEXSUBIMAGE2DPROC, glTexSubImage2D)                           \
    X(PFNGLUNIFORM1IPROC, glUniform1i) X(PFNGLUNIFORM1UIPROC, glUniform1ui) X(PFNGLUSEPROGRAMPROC, glUseProgram)  \
    X(PFNGLVIEWPORTPROC, glViewport)

typedef struct bitonic_gl {
    void *library;
#define BITONIC_GL_FIELD(type, name) type name;
    BITONIC_GL_FUNCTIONS(BITONIC_GL_FIELD)
#undef BITONIC_GL_FIELD
} bitonic_gl;

/* Opens libGLESv2.so.2 (the one the process already has, if any: the calls go
 * to whatever context is current) and finds every entry point above.
 * BITONIC_ERROR_GLES_UNAVAILABLE when the library or one of them is missing. */
bitonic_status bitonic_gl_load(bitonic_gl *gl);
void bitonic_gl_unload(bitonic_gl *gl);

#define BITONIC_EGL_FUNCTIONS(X)                                                                                  \
    X(PFNEGLBINDAPIPROC, eglBindAPI) X(PFNEGLCHOOSECONFIGPROC, eglChooseConfig)                                   \
    X(PFNEGLCREATECONTEXTPROC, eglCreateContext) X(PFNEGLCREATEPBUFFERSURFACEPROC, eglCreatePbufferSurface)       \
    X(PFNEGLDESTROYCONTEXTPROC, eglDestroyContext) X(PFNEGLDESTROYSURFACEPROC, eglDestroySurface)                 \
    X(PFNEGLGETCURRENTCONTEXTPROC, eglGetCurrentContext) X(PFNEGLGETCURRENTDISPLAYPROC, eglGetCurrentDisplay)     \
    X(PFNEGLGETCURRENTSURFACEPROC, eglGetCurrentSurface) X(PFNEGLGETDISPLAYPROC, eglGetDisplay)                   \
    X(PFNEGLGETPROCADDRESSPROC, eglGetProcAddress) X(PFNEGLINITIALIZEPROC, eglInitialize)                         \
    X(PFNEGLMAKECURRENTPROC, eglMakeCurrent) X(PFNEGLQUERYSTRINGPROC, eglQueryString)

typedef struct bitonic_egl {
    void *library;
#define BITONIC_EGL_FIELD(type, name) type name;
    BITONIC_EGL_FUNCTIONS(BITONIC_EGL_FIELD)
#undef BITONIC_EGL_FIELD
} bitonic_egl;

/* libEGL.so.1, as bitonic_gl_load. */
bitonic_status bitonic_egl_load(bitonic_egl *egl);
void bitonic_egl_unload(bitonic_egl *egl);

#endif /* BITONIC_GLES_API_H */
