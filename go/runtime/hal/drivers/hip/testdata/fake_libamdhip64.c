// A fake libamdhip64 for the hip driver's tests: two GPUs, a few
// hipError_t values, and counters the tests read back. Signatures as in
// hip/hip_runtime_api.h. hipDeviceProp_t is filled at the offsets of
// props.go: by hipGetDevicePropertiesR0600 by default, by the ROCm 5
// hipGetDeviceProperties (R0000 layout) with -DFAKE_R0000, and with the
// name missing from offset 0 with -DFAKE_BAD_LAYOUT.
#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef int hipError_t;
typedef int hipDevice_t;

static int init_result = 0;
static int retained[2];

void fake_set_init_result(int r) { init_result = r; }
int fake_retained(int dev) { return retained[dev]; }

hipError_t hipInit(unsigned int flags) { return flags != 0 ? 1 : init_result; }
const char* hipGetErrorName(hipError_t r) {
  switch (r) {
    case 1: return "hipErrorInvalidValue";
    case 100: return "hipErrorNoDevice";
    case 101: return "hipErrorInvalidDevice";
    case 201: return "hipErrorInvalidContext";
  }
  return "hipErrorUnknown";
}
hipError_t hipGetDeviceCount(int* n) { *n = 2; return 0; }
hipError_t hipDeviceGet(hipDevice_t* d, int ordinal) {
  if (ordinal < 0 || ordinal >= 2) return 101;
  *d = ordinal;
  return 0;
}
hipError_t hipDeviceGetName(char* name, int len, hipDevice_t d) {
  if (d < 0 || d >= 2) return 101;
  snprintf(name, (size_t)len, "Fake Instinct %d", d);
  return 0;
}
// AMD's UUIDs are 16 ASCII characters; IREE prints their bytes in hex.
hipError_t hipDeviceGetUuid(char* uuid, hipDevice_t d) {
  if (d < 0 || d >= 2) return 101;
  memcpy(uuid, d == 0 ? "0123456789abcdef" : "fedcba9876543210", 16);
  return 0;
}
// Every attribute answers 1000 * device + attribute; 999 is invalid.
hipError_t hipDeviceGetAttribute(int* v, int attr, int d) {
  if (d < 0 || d >= 2) return 101;
  if (attr == 999) return 1;
  *v = 1000 * d + attr;
  return 0;
}
hipError_t hipDeviceTotalMem(size_t* bytes, hipDevice_t d) {
  *bytes = (size_t)64 << 30;
  return 0;
}

static hipError_t fill_props(char* props, int d, size_t arch_offset) {
  if (d < 0 || d >= 2) return 101;
#ifdef FAKE_BAD_LAYOUT
  snprintf(props + 8, 256, "Fake Instinct %d", d);
#else
  snprintf(props, 256, "Fake Instinct %d", d);
#endif
  strcpy(props + arch_offset, d == 0 ? "gfx942:sramecc+:xnack-" : "gfx1100");
  return 0;
}
#ifdef FAKE_R0000
hipError_t hipGetDeviceProperties(char* props, int d) { return fill_props(props, d, 396); }
#else
hipError_t hipGetDevicePropertiesR0600(char* props, int d) { return fill_props(props, d, 1160); }
#endif

hipError_t hipDevicePrimaryCtxRetain(void** ctx, hipDevice_t d) {
  if (d < 0 || d >= 2) return 101;
  retained[d]++;
  *ctx = (void*)(size_t)(0x2000 + d);
  return 0;
}
hipError_t hipDevicePrimaryCtxRelease(hipDevice_t d) {
  if (d < 0 || d >= 2) return 101;
  if (retained[d] == 0) return 201;
  retained[d]--;
  return 0;
}
