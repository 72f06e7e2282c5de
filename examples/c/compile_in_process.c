/* Compiles a program in process with IREE's compiler embedding API, as a C
 * program written against IREE's libIREECompiler does, linked against
 * libgree.so instead.
 *
 *   compile_in_process <input.mlir> <output.vmfb> [compiler flags...]
 *
 * Prints the diagnostics the compiler reports (severity and text), the
 * session's non-default flags and the module's size; exits 1 if parsing or
 * compiling fails. */
#include <stdio.h>
#include <string.h>

#include "iree/compiler/embedding_api.h"

static void on_diagnostic(enum iree_compiler_diagnostic_severity_t severity, const char* message, size_t size,
                          void* user) {
  (void)user;
  static const char* names[] = {"note", "warning", "error", "remark"};
  printf("diagnostic %s: %.*s\n", names[severity & 3], (int)size, message);
}

static void on_flag(const char* flag, size_t length, void* user) {
  (void)user;
  printf("flag %.*s\n", (int)length, flag);
}

static void on_backend(const char* name, void* user) {
  int* count = (int*)user;
  ++*count;
  (void)name;
}

static int fail(iree_compiler_error_t* error, const char* what) {
  printf("%s failed: %s\n", what, ireeCompilerErrorGetMessage(error));
  ireeCompilerErrorDestroy(error);
  return 1;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s <input.mlir> <output.vmfb> [flags...]\n", argv[0]);
    return 2;
  }
  ireeCompilerGlobalInitialize();
  int version = ireeCompilerGetAPIVersion();
  int backends = 0;
  ireeCompilerEnumerateRegisteredHALTargetBackends(on_backend, &backends);
  printf("api %d.%d, %s, %d target backends\n", version >> 16, version & 0xffff, ireeCompilerGetRevision(),
         backends);

  iree_compiler_session_t* session = ireeCompilerSessionCreate();
  iree_compiler_error_t* error =
      ireeCompilerSessionSetFlags(session, argc - 3, (const char* const*)(argv + 3));
  if (error) return fail(error, "setting flags");
  ireeCompilerSessionGetFlags(session, true, on_flag, NULL);

  iree_compiler_source_t* source = NULL;
  if ((error = ireeCompilerSourceOpenFile(session, argv[1], &source))) return fail(error, "opening the source");
  iree_compiler_invocation_t* inv = ireeCompilerInvocationCreate(session);
  ireeCompilerInvocationEnableCallbackDiagnostics(inv, 0, on_diagnostic, NULL);
  int rc = 1;
  if (ireeCompilerInvocationParseSource(inv, source) &&
      ireeCompilerInvocationPipeline(inv, IREE_COMPILER_PIPELINE_STD)) {
    iree_compiler_output_t* mem = NULL;
    iree_compiler_output_t* file = NULL;
    void* contents = NULL;
    uint64_t size = 0;
    if ((error = ireeCompilerOutputOpenMembuffer(&mem))) return fail(error, "opening a membuffer");
    if ((error = ireeCompilerInvocationOutputVMBytecode(inv, mem))) return fail(error, "writing the module");
    if ((error = ireeCompilerOutputMapMemory(mem, &contents, &size))) return fail(error, "mapping the module");
    if ((error = ireeCompilerOutputOpenFile(argv[2], &file))) return fail(error, "opening the output file");
    if ((error = ireeCompilerOutputWrite(file, contents, (size_t)size))) return fail(error, "writing the file");
    ireeCompilerOutputKeep(file);
    printf("module %llu bytes\n", (unsigned long long)size);
    ireeCompilerOutputDestroy(file);
    ireeCompilerOutputDestroy(mem);
    rc = 0;
  }
  /* Misuse the library reports instead of crashing on. */
  error = ireeCompilerSessionSetFlags(NULL, 0, NULL);
  if (!error || !strstr(ireeCompilerErrorGetMessage(error), "NULL")) rc = 3;
  ireeCompilerErrorDestroy(error);

  ireeCompilerInvocationDestroy(inv);
  ireeCompilerSourceDestroy(source);
  ireeCompilerSessionDestroy(session);
  ireeCompilerGlobalShutdown();
  return rc;
}
