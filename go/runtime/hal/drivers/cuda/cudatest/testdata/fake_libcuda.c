// A fake libcuda for the cuda driver's tests: two GPUs (compute
// capability 9.0 and 8.0) whose "device memory" is host memory, so that
// copies and fills really move bytes. Streams and events are synchronous;
// modules keep their PTX text, and a launch is recorded and handed to a
// hook the test registers (which may run the kernel). Calls that need a
// context fail with CUDA_ERROR_INVALID_CONTEXT unless the calling thread
// made one current, as with the real library. Signatures as in cuda.h.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;

static int init_result = 0;
static int retained[2];
static int init_calls = 0;

void fake_set_init_result(int r) { init_result = r; }
int fake_retained(int dev) { return retained[dev]; }
int fake_init_calls(void) { return init_calls; }

CUresult cuInit(unsigned int flags) {
  init_calls++;
  return flags != 0 ? 1 : init_result;
}
CUresult cuDriverGetVersion(int* v) { *v = 12040; return 0; }
CUresult cuDeviceGetCount(int* n) { *n = 2; return 0; }
CUresult cuDeviceGet(CUdevice* d, int ordinal) {
  if (ordinal < 0 || ordinal >= 2) return 101;
  *d = ordinal;
  return 0;
}
CUresult cuDeviceGetName(char* name, int len, CUdevice d) {
  if (d < 0 || d >= 2) return 101;
  snprintf(name, (size_t)len, "Fake GPU %d", d);
  return 0;
}
CUresult cuDeviceGetUuid_v2(unsigned char* uuid, CUdevice d) {
  if (d < 0 || d >= 2) return 101;
  for (int i = 0; i < 16; ++i) uuid[i] = (unsigned char)(0xa0 + d * 16 + i);
  return 0;
}

// Attributes: the ones the driver checks work against answer realistic
// values (fake_set_attribute changes them); every other answers
// 1000 * device + attribute; 999 is invalid.
#define MAX_ATTR 200
static int attr_set[2][MAX_ATTR];
static int attr_value[2][MAX_ATTR];
void fake_set_attribute(int d, int attr, int v) {
  attr_set[d][attr] = 1;
  attr_value[d][attr] = v;
}
int fake_attribute(int d, int attr) {
  if (attr >= 0 && attr < MAX_ATTR && attr_set[d][attr]) return attr_value[d][attr];
  switch (attr) {
    case 1: return 1024;                       // max threads per block
    case 2: case 3: return 1024;               // max block x, y
    case 4: return 64;                         // max block z
    case 5: return 2147483647;                 // max grid x
    case 6: case 7: return 65535;              // max grid y, z
    case 8: return 49152;                      // shared bytes per block
    case 75: return d == 0 ? 9 : 8;            // compute capability major
    case 76: return 0;                         // minor
    case 115: return 1;                        // memory pools
  }
  return 1000 * d + attr;
}
CUresult cuDeviceGetAttribute(int* v, int attr, CUdevice d) {
  if (d < 0 || d >= 2) return 101;
  if (attr == 999) return 1;
  *v = fake_attribute(d, attr);
  return 0;
}
CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice d) {
  *bytes = (size_t)80 << 30;
  return 0;
}
CUresult cuGetErrorName(CUresult r, const char** s) {
  switch (r) {
    case 1: *s = "CUDA_ERROR_INVALID_VALUE"; return 0;
    case 2: *s = "CUDA_ERROR_OUT_OF_MEMORY"; return 0;
    case 100: *s = "CUDA_ERROR_NO_DEVICE"; return 0;
    case 101: *s = "CUDA_ERROR_INVALID_DEVICE"; return 0;
    case 201: *s = "CUDA_ERROR_INVALID_CONTEXT"; return 0;
    case 218: *s = "CUDA_ERROR_INVALID_PTX"; return 0;
    case 400: *s = "CUDA_ERROR_INVALID_HANDLE"; return 0;
    case 500: *s = "CUDA_ERROR_NOT_FOUND"; return 0;
    case 719: *s = "CUDA_ERROR_LAUNCH_FAILED"; return 0;
  }
  *s = NULL;
  return 1;
}
CUresult cuDevicePrimaryCtxRetain(void** ctx, CUdevice d) {
  if (d < 0 || d >= 2) return 101;
  retained[d]++;
  *ctx = (void*)(size_t)(0x1000 + d);
  return 0;
}
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) {
  if (d < 0 || d >= 2) return 101;
  if (retained[d] == 0) return 201;
  retained[d]--;
  return 0;
}

// Contexts: current per thread.
static __thread void* current;
static int context_calls;  // calls that needed a context
int fake_context_calls(void) { return context_calls; }
#define NEED_CONTEXT()                                                     \
  do {                                                                     \
    __atomic_add_fetch(&context_calls, 1, __ATOMIC_SEQ_CST);               \
    if (current == NULL) return 201;                                       \
  } while (0)

CUresult cuCtxSetCurrent(void* ctx) {
  size_t c = (size_t)ctx;
  if (ctx != NULL && (c < 0x1000 || c > 0x1001 || retained[c - 0x1000] == 0)) return 201;
  current = ctx;
  return 0;
}
CUresult cuCtxGetCurrent(void** ctx) { *ctx = current; return 0; }
CUresult cuCtxPushCurrent_v2(void* ctx) { return cuCtxSetCurrent(ctx); }
CUresult cuCtxPopCurrent_v2(void** ctx) {
  if (ctx) *ctx = current;
  current = NULL;
  return 0;
}

// -DFAKE_NO_EXEC builds a library that only enumerates (as the fakes of
// drivers that do not execute do).
#ifndef FAKE_NO_EXEC
#include "fake_libcuda_exec.h"
#endif
