/* gree's implementation of IREE's compiler embedding API.
 *
 * libgree.so exports these functions with the names, types and behaviour of
 * IREE's compiler/bindings/c/iree/compiler/embedding_api.h, so that a C
 * program (or iree-turbine through Python) that compiles in process against
 * IREE does the same against gree. The objects are opaque; every *Destroy
 * function accepts NULL. An iree_compiler_error_t returned by a function is
 * the caller's: read it with ireeCompilerErrorGetMessage and free it with
 * ireeCompilerErrorDestroy.
 *
 * What gree's compiler does not do is reported, not faked: MLIR bytecode
 * (input or ireeCompilerInvocationOutputIRBytecode), textual MLIR pass
 * pipelines (ireeCompilerInvocationRunPassPipeline returns false with a
 * diagnostic), the HAL_EXECUTABLE and VM pipelines, VM C source output.
 * See docs/c-api.md.
 */
#ifndef IREE_COMPILER_EMBEDDING_API_H
#define IREE_COMPILER_EMBEDDING_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef IREE_EMBED_EXPORTED
#define IREE_EMBED_EXPORTED __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* GREE_EMBED_CDEF_BEGIN */
typedef struct iree_compiler_error_t iree_compiler_error_t;
typedef struct iree_compiler_session_t iree_compiler_session_t;
typedef struct iree_compiler_invocation_t iree_compiler_invocation_t;
typedef struct iree_compiler_source_t iree_compiler_source_t;
typedef struct iree_compiler_output_t iree_compiler_output_t;

enum iree_compiler_diagnostic_severity_t {
  IREE_COMPILER_DIAGNOSTIC_SEVERITY_NOTE = 0,
  IREE_COMPILER_DIAGNOSTIC_SEVERITY_WARNING = 1,
  IREE_COMPILER_DIAGNOSTIC_SEVERITY_ERROR = 2,
  IREE_COMPILER_DIAGNOSTIC_SEVERITY_REMARK = 3,
};

enum iree_compiler_pipeline_t {
  IREE_COMPILER_PIPELINE_STD = 0,
  IREE_COMPILER_PIPELINE_HAL_EXECUTABLE = 1,
  IREE_COMPILER_PIPELINE_PRECOMPILE = 2,
  IREE_COMPILER_PIPELINE_VM = 3,
};

/* Errors. The message is owned by the error. */
IREE_EMBED_EXPORTED void ireeCompilerErrorDestroy(iree_compiler_error_t *error);
IREE_EMBED_EXPORTED const char *ireeCompilerErrorGetMessage(iree_compiler_error_t *error);

/* Process. The API version is (major << 16) | minor. Global setup is
 * optional: ireeCompilerSetupGlobalCL's flags become the defaults of every
 * session created afterwards (an invalid one is reported on stderr). */
IREE_EMBED_EXPORTED int ireeCompilerGetAPIVersion(void);
IREE_EMBED_EXPORTED void ireeCompilerGlobalInitialize(void);
IREE_EMBED_EXPORTED const char *ireeCompilerGetRevision(void);
IREE_EMBED_EXPORTED void ireeCompilerGetProcessCLArgs(int *argc, const char ***argv);
IREE_EMBED_EXPORTED void ireeCompilerSetupGlobalCL(int argc, const char **argv, const char *banner,
                                                   bool installSignalHandlers);
IREE_EMBED_EXPORTED void ireeCompilerGlobalShutdown(void);
IREE_EMBED_EXPORTED void ireeCompilerEnumerateRegisteredHALTargetBackends(
    void (*callback)(const char *backend, void *userData), void *userData);
IREE_EMBED_EXPORTED void ireeCompilerEnumeratePlugins(void (*callback)(const char *pluginName, void *userData),
                                                      void *userData);

/* Sessions: compiler flags, scoped to the session. */
IREE_EMBED_EXPORTED iree_compiler_session_t *ireeCompilerSessionCreate(void);
IREE_EMBED_EXPORTED void ireeCompilerSessionDestroy(iree_compiler_session_t *session);
IREE_EMBED_EXPORTED iree_compiler_error_t *ireeCompilerSessionSetFlags(iree_compiler_session_t *session, int argc,
                                                                       const char *const *argv);
IREE_EMBED_EXPORTED void ireeCompilerSessionGetFlags(iree_compiler_session_t *session, bool nonDefaultOnly,
                                                     void (*onFlag)(const char *flag, size_t length, void *),
                                                     void *userData);

/* Invocations: one program compiled with the session's flags. */
IREE_EMBED_EXPORTED iree_compiler_invocation_t *ireeCompilerInvocationCreate(iree_compiler_session_t *session);
IREE_EMBED_EXPORTED void ireeCompilerInvocationEnableCallbackDiagnostics(
    iree_compiler_invocation_t *inv, int flags,
    void (*callback)(enum iree_compiler_diagnostic_severity_t severity, const char *message, size_t messageSize,
                     void *userData),
    void *userData);
IREE_EMBED_EXPORTED void ireeCompilerInvocationEnableConsoleDiagnostics(iree_compiler_invocation_t *inv);
IREE_EMBED_EXPORTED void ireeCompilerInvocationDestroy(iree_compiler_invocation_t *inv);
IREE_EMBED_EXPORTED void ireeCompilerInvocationSetCrashHandler(
    iree_compiler_invocation_t *inv, bool genLocalReproducer,
    iree_compiler_error_t *(*onCrashCallback)(iree_compiler_output_t **outOutput, void *userData), void *userData);
IREE_EMBED_EXPORTED bool ireeCompilerInvocationParseSource(iree_compiler_invocation_t *inv,
                                                           iree_compiler_source_t *source);
IREE_EMBED_EXPORTED void ireeCompilerInvocationSetCompileFromPhase(iree_compiler_invocation_t *inv,
                                                                   const char *phase);
IREE_EMBED_EXPORTED void ireeCompilerInvocationSetCompileToPhase(iree_compiler_invocation_t *inv, const char *phase);
IREE_EMBED_EXPORTED void ireeCompilerInvocationSetDumpCompilationPhasesTo(iree_compiler_invocation_t *inv,
                                                                          const char *path);
IREE_EMBED_EXPORTED void ireeCompilerInvocationSetVerifyIR(iree_compiler_invocation_t *inv, bool enable);
IREE_EMBED_EXPORTED void ireeCompilerInvocationSetupRemarks(iree_compiler_invocation_t *inv,
                                                            const char *remarksFilter,
                                                            const char *remarksOutputFile);
IREE_EMBED_EXPORTED bool ireeCompilerInvocationPipeline(iree_compiler_invocation_t *inv,
                                                        enum iree_compiler_pipeline_t pipeline);
IREE_EMBED_EXPORTED bool ireeCompilerInvocationRunPassPipeline(iree_compiler_invocation_t *inv,
                                                               const char *textPassPipeline);
IREE_EMBED_EXPORTED iree_compiler_error_t *ireeCompilerInvocationOutputIR(iree_compiler_invocation_t *inv,
                                                                         iree_compiler_output_t *output);
IREE_EMBED_EXPORTED iree_compiler_error_t *ireeCompilerInvocationOutputIRBytecode(iree_compiler_invocation_t *inv,
                                                                                 iree_compiler_output_t *output,
                                                                                 int bytecodeVersion);
IREE_EMBED_EXPORTED iree_compiler_error_t *ireeCompilerInvocationOutputVMBytecode(iree_compiler_invocation_t *inv,
                                                                                 iree_compiler_output_t *output);
IREE_EMBED_EXPORTED iree_compiler_error_t *ireeCompilerInvocationOutputVMCSource(iree_compiler_invocation_t *inv,
                                                                                iree_compiler_output_t *output);
IREE_EMBED_EXPORTED iree_compiler_error_t *ireeCompilerInvocationOutputHALExecutable(
    iree_compiler_invocation_t *inv, iree_compiler_output_t *output);

/* Sources. A wrapped buffer is copied: the caller may free it at once. The
 * parts ireeCompilerSourceSplit passes to its callback are destroyed when
 * the callback returns. */
IREE_EMBED_EXPORTED void ireeCompilerSourceDestroy(iree_compiler_source_t *source);
IREE_EMBED_EXPORTED iree_compiler_error_t *ireeCompilerSourceOpenFile(iree_compiler_session_t *session,
                                                                      const char *filePath,
                                                                      iree_compiler_source_t **out_source);
IREE_EMBED_EXPORTED iree_compiler_error_t *ireeCompilerSourceWrapBuffer(iree_compiler_session_t *session,
                                                                        const char *bufferName, const char *buffer,
                                                                        size_t length, bool isNullTerminated,
                                                                        iree_compiler_source_t **out_source);
IREE_EMBED_EXPORTED iree_compiler_error_t *ireeCompilerSourceSplit(
    iree_compiler_source_t *source, void (*callback)(iree_compiler_source_t *source, void *userData), void *userData);

/* Outputs. A file output is removed when destroyed unless kept. The memory
 * ireeCompilerOutputMapMemory returns stays valid until the next write to
 * the output or its destruction. */
IREE_EMBED_EXPORTED void ireeCompilerOutputDestroy(iree_compiler_output_t *output);
IREE_EMBED_EXPORTED iree_compiler_error_t *ireeCompilerOutputOpenFile(const char *filePath,
                                                                      iree_compiler_output_t **out_output);
IREE_EMBED_EXPORTED iree_compiler_error_t *ireeCompilerOutputOpenFD(int fd, iree_compiler_output_t **out_output);
IREE_EMBED_EXPORTED iree_compiler_error_t *ireeCompilerOutputOpenMembuffer(iree_compiler_output_t **out_output);
IREE_EMBED_EXPORTED iree_compiler_error_t *ireeCompilerOutputMapMemory(iree_compiler_output_t *output,
                                                                       void **contents, uint64_t *size);
IREE_EMBED_EXPORTED void ireeCompilerOutputKeep(iree_compiler_output_t *output);
IREE_EMBED_EXPORTED iree_compiler_error_t *ireeCompilerOutputWrite(iree_compiler_output_t *output, const void *data,
                                                                   size_t length);
/* GREE_EMBED_CDEF_END */

#ifdef __cplusplus
}
#endif

#endif /* IREE_COMPILER_EMBEDDING_API_H */
