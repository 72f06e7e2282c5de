// A fake libcuda for the cuda driver's tests: two GPUs, a few CUresults,
// and counters the tests read back. Signatures as in cuda.h.
#include <stddef.h>
#include <stdio.h>

typedef int CUresult;
typedef int CUdevice;

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
// Every attribute answers 1000 * device + attribute; 999 is invalid.
CUresult cuDeviceGetAttribute(int* v, int attr, CUdevice d) {
  if (d < 0 || d >= 2) return 101;
  if (attr == 999) return 1;
  *v = 1000 * d + attr;
  return 0;
}
CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice d) {
  *bytes = (size_t)80 << 30;
  return 0;
}
CUresult cuGetErrorName(CUresult r, const char** s) {
  switch (r) {
    case 1: *s = "CUDA_ERROR_INVALID_VALUE"; return 0;
    case 100: *s = "CUDA_ERROR_NO_DEVICE"; return 0;
    case 101: *s = "CUDA_ERROR_INVALID_DEVICE"; return 0;
    case 201: *s = "CUDA_ERROR_INVALID_CONTEXT"; return 0;
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
