// The executing half of fake_libcuda.c (included by it): memory, streams,
// events, modules and launches over host memory.
#include <pthread.h>
#include <time.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

// Device and pinned host allocations (both malloc'd), counted so that
// tests see leaks; fake_set_mem_limit bounds the live device bytes.
static long long live_device_bytes, live_device_allocs, live_host_allocs;
static long long mem_limit = -1;
void fake_set_mem_limit(long long bytes) { mem_limit = bytes; }
long long fake_live_device_allocs(void) { return live_device_allocs; }
long long fake_live_device_bytes(void) { return live_device_bytes; }
long long fake_live_host_allocs(void) { return live_host_allocs; }

// Every live allocation (device and pinned host), for tests that check a
// kernel's accesses against them.
#define MAX_ALLOCS 4096
static unsigned long long alloc_base[MAX_ALLOCS], alloc_size[MAX_ALLOCS];
static int nallocs;
static void track(void* p, size_t n) {  // mu held
  if (nallocs < MAX_ALLOCS) {
    alloc_base[nallocs] = (unsigned long long)(uintptr_t)p;
    alloc_size[nallocs++] = n;
  }
}
static void untrack(void* p) {  // mu held
  for (int i = 0; i < nallocs; i++) {
    if (alloc_base[i] == (unsigned long long)(uintptr_t)p) {
      alloc_base[i] = alloc_base[--nallocs];
      alloc_size[i] = alloc_size[nallocs];
      return;
    }
  }
}
int fake_allocations(unsigned long long* bases, unsigned long long* sizes, int cap) {
  pthread_mutex_lock(&mu);
  int n = nallocs < cap ? nallocs : cap;
  memcpy(bases, alloc_base, sizeof(bases[0]) * n);
  memcpy(sizes, alloc_size, sizeof(sizes[0]) * n);
  pthread_mutex_unlock(&mu);
  return n;
}

// Each device allocation is preceded by its size.
static CUresult alloc_device(CUdeviceptr* p, size_t n) {
  if (n == 0) return 1;
  pthread_mutex_lock(&mu);
  if (mem_limit >= 0 && live_device_bytes + (long long)n > mem_limit) {
    pthread_mutex_unlock(&mu);
    return 2;
  }
  size_t* block = malloc(n + 16);
  if (block == NULL) {
    pthread_mutex_unlock(&mu);
    return 2;
  }
  block[0] = n;
  memset(block + 2, 0xcd, n);  // device memory is not zeroed by CUDA
  live_device_bytes += (long long)n;
  live_device_allocs++;
  track(block + 2, n);
  pthread_mutex_unlock(&mu);
  *p = (CUdeviceptr)(uintptr_t)(block + 2);
  return 0;
}
static CUresult free_device(CUdeviceptr p) {
  if (p == 0) return 1;
  size_t* block = (size_t*)(uintptr_t)p - 2;
  pthread_mutex_lock(&mu);
  live_device_bytes -= (long long)block[0];
  live_device_allocs--;
  untrack(block + 2);
  pthread_mutex_unlock(&mu);
  free(block);
  return 0;
}

CUresult cuMemGetInfo_v2(size_t* free_bytes, size_t* total) {
  NEED_CONTEXT();
  *total = (size_t)80 << 30;
  *free_bytes = *total - (size_t)live_device_bytes;
  return 0;
}
CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t n) { NEED_CONTEXT(); return alloc_device(p, n); }
CUresult cuMemFree_v2(CUdeviceptr p) { NEED_CONTEXT(); return free_device(p); }
static int async_allocs;
int fake_async_allocs(void) { return async_allocs; }
CUresult cuMemAllocAsync(CUdeviceptr* p, size_t n, void* stream) {
  NEED_CONTEXT();
  async_allocs++;
  return alloc_device(p, n);
}
CUresult cuMemFreeAsync(CUdeviceptr p, void* stream) { NEED_CONTEXT(); return free_device(p); }
CUresult cuMemHostAlloc(void** p, size_t n, unsigned int flags) {
  NEED_CONTEXT();
  *p = malloc(n ? n : 1);
  if (*p == NULL) return 2;
  pthread_mutex_lock(&mu);
  live_host_allocs++;
  track(*p, n);
  pthread_mutex_unlock(&mu);
  return 0;
}
CUresult cuMemFreeHost(void* p) {
  NEED_CONTEXT();
  pthread_mutex_lock(&mu);
  live_host_allocs--;
  untrack(p);
  pthread_mutex_unlock(&mu);
  free(p);
  return 0;
}
#define PTR(x) ((void*)(uintptr_t)(x))

// A stream runs work when it is enqueued, except while it captures a
// graph (fake_libcuda_graph.h): then the work is recorded.
typedef struct op op;
typedef struct {
  int capturing;
  op* ops;
  int nops, cap;
} stream_t;
static int capturing(void* st) { return st != NULL && ((stream_t*)st)->capturing; }
static CUresult record_copy(void* st, CUdeviceptr d, CUdeviceptr s, size_t n);
static CUresult record_set(void* st, CUdeviceptr d, unsigned v, int width, size_t n);
static void set(CUdeviceptr d, unsigned v, int width, size_t n) {
  for (size_t i = 0; i < n; i++) {
    switch (width) {
      case 1: ((unsigned char*)PTR(d))[i] = (unsigned char)v; break;
      case 2: ((unsigned short*)PTR(d))[i] = (unsigned short)v; break;
      default: ((unsigned int*)PTR(d))[i] = v; break;
    }
  }
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void* s, size_t n) { NEED_CONTEXT(); memcpy(PTR(d), s, n); return 0; }
CUresult cuMemcpyDtoH_v2(void* d, CUdeviceptr s, size_t n) { NEED_CONTEXT(); memcpy(d, PTR(s), n); return 0; }
CUresult cuMemcpyAsync(CUdeviceptr d, CUdeviceptr s, size_t n, void* st) {
  NEED_CONTEXT();
  if (capturing(st)) return record_copy(st, d, s, n);
  memmove(PTR(d), PTR(s), n);
  return 0;
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, void* st) { return cuMemcpyAsync(d, s, n, st); }
CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n) { NEED_CONTEXT(); memset(PTR(d), v, n); return 0; }
static CUresult set_async(CUdeviceptr d, unsigned v, int width, size_t n, void* st) {
  NEED_CONTEXT();
  if (d % width) return 1;
  if (capturing(st)) return record_set(st, d, v, width, n);
  set(d, v, width, n);
  return 0;
}
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, void* st) { return set_async(d, v, 1, n, st); }
CUresult cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n, void* st) { return set_async(d, v, 2, n, st); }
CUresult cuMemsetD32Async(CUdeviceptr d, unsigned int v, size_t n, void* st) { return set_async(d, v, 4, n, st); }

// Streams and events: counted; work runs when enqueued.
static long long live_streams, live_events;
long long fake_live_streams(void) { return live_streams; }
long long fake_live_events(void) { return live_events; }
CUresult cuStreamCreate(void** s, unsigned int flags) {
  NEED_CONTEXT();
  *s = calloc(1, sizeof(stream_t));
  __atomic_add_fetch(&live_streams, 1, __ATOMIC_SEQ_CST);
  return 0;
}
CUresult cuStreamDestroy_v2(void* s) {
  NEED_CONTEXT();
  if (capturing(s)) return 900;  // CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
  __atomic_sub_fetch(&live_streams, 1, __ATOMIC_SEQ_CST);
  free(((stream_t*)s)->ops);
  free(s);
  return 0;
}
CUresult cuStreamSynchronize(void* s) {
  NEED_CONTEXT();
  return capturing(s) ? 900 : 0;
}
// An event notes the monotonic time at which the stream reached it (work
// runs when enqueued, so that is when it is recorded); cuEventElapsedTime
// tells the time between two, unless one was made without timing
// (CU_EVENT_DISABLE_TIMING) or never recorded (CUDA_ERROR_INVALID_HANDLE).
// Recording one during a capture is refused, as graphs here have no event
// nodes.
typedef struct {
  unsigned flags;
  int recorded;
  long long ns;
} event_t;
static long long event_records;
long long fake_event_records(void) { return event_records; }
CUresult cuEventCreate(void** e, unsigned int flags) {
  NEED_CONTEXT();
  if (flags & ~3u) return 1;
  event_t* ev = calloc(1, sizeof(event_t));
  ev->flags = flags;
  *e = ev;
  __atomic_add_fetch(&live_events, 1, __ATOMIC_SEQ_CST);
  return 0;
}
CUresult cuEventRecord(void* e, void* s) {
  NEED_CONTEXT();
  if (e == NULL) return 400;
  if (capturing(s)) return 900;
  event_t* ev = e;
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  ev->ns = (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
  ev->recorded = 1;
  __atomic_add_fetch(&event_records, 1, __ATOMIC_SEQ_CST);
  return 0;
}
CUresult cuEventElapsedTime(float* ms, void* start, void* end) {
  NEED_CONTEXT();
  event_t *a = start, *b = end;
  if (ms == NULL) return 1;
  if (a == NULL || b == NULL || (a->flags & 2) || (b->flags & 2) || !a->recorded || !b->recorded) return 400;
  *ms = (float)((double)(b->ns - a->ns) / 1e6);
  return 0;
}
CUresult cuEventSynchronize(void* e) { NEED_CONTEXT(); return 0; }
CUresult cuEventDestroy_v2(void* e) {
  NEED_CONTEXT();
  __atomic_sub_fetch(&live_events, 1, __ATOMIC_SEQ_CST);
  free(e);
  return 0;
}

// Modules keep a copy of their PTX; a function is an entry the text
// declares (".entry NAME" followed by its parameter list), with the
// number of its parameters.
typedef struct { char* ptx; } module;
typedef struct { module* m; char name[256]; int nparams; } function;
static long long live_modules;
long long fake_live_modules(void) { return live_modules; }

static void write_log(char* buf, size_t size, const char* text) {
  if (buf != NULL && size > 0) snprintf(buf, size, "%s", text);
}
CUresult cuModuleLoadDataEx(void** out, const void* image, unsigned int n, int* options, void** values) {
  NEED_CONTEXT();
  char *info = NULL, *err = NULL;
  size_t info_size = 0, err_size = 0;
  for (unsigned int i = 0; i < n; i++) {
    switch (options[i]) {
      case 3: info = values[i]; break;
      case 4: info_size = (size_t)values[i]; break;
      case 5: err = values[i]; break;
      case 6: err_size = (size_t)values[i]; break;
    }
  }
  const char* text = image;
  if (strstr(text, "FAKE_JIT_ERROR") != NULL) {
    write_log(err, err_size, "ptxas fatal   : fake JIT failure at FAKE_JIT_ERROR");
    write_log(info, info_size, "ptxas info    : compiling for the fake GPU");
    return 218;
  }
  module* m = malloc(sizeof(module));
  m->ptx = strdup(text);
  write_log(info, info_size, "ptxas info    : compiled");
  __atomic_add_fetch(&live_modules, 1, __ATOMIC_SEQ_CST);
  *out = m;
  return 0;
}
CUresult cuModuleUnload(void* p) {
  NEED_CONTEXT();
  module* m = p;
  if (m == NULL) return 400;
  free(m->ptx);
  free(m);
  __atomic_sub_fetch(&live_modules, 1, __ATOMIC_SEQ_CST);
  return 0;
}
static int ident(char c) { return c == '_' || c == '$' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
CUresult cuModuleGetFunction(void** out, void* p, const char* name) {
  NEED_CONTEXT();
  module* m = p;
  size_t len = strlen(name);
  for (const char* s = strstr(m->ptx, ".entry "); s != NULL; s = strstr(s + 1, ".entry ")) {
    const char* at = s + 7;
    while (*at == ' ') at++;
    if (strncmp(at, name, len) != 0 || ident(at[len])) continue;
    function* f = calloc(1, sizeof(function));
    f->m = m;
    snprintf(f->name, sizeof f->name, "%s", name);
    const char* open = strchr(at, '(');
    const char* close = open ? strchr(open, ')') : NULL;
    for (const char* q = open; q != NULL && q < close; q = strstr(q + 1, ".param")) {
      if (q != open) f->nparams++;
    }
    *out = f;  // leaked with the module, as CUDA's are owned by it
    return 0;
  }
  return 500;
}
static int func_max_threads = 1024;
void fake_set_func_max_threads(int n) { func_max_threads = n; }
CUresult cuFuncGetAttribute(int* v, int attr, void* fn) {
  NEED_CONTEXT();
  switch (attr) {
    case 0: *v = func_max_threads; return 0;
    case 1: *v = 0; return 0;
  }
  return 1;
}

// Launches: the last is recorded, and the hook (when set) runs it.
typedef int (*launch_hook)(const char* ptx, const char* entry, unsigned gx, unsigned gy, unsigned gz,
                           unsigned bx, unsigned by, unsigned bz, const unsigned long long* params, int nparams);
static launch_hook hook;
void fake_set_launch_hook(launch_hook h) { hook = h; }
static int launches;
static unsigned last_dims[7];
static unsigned long long last_params[64];
static int last_nparams;
static char last_entry[256];
int fake_launches(void) { return launches; }
unsigned fake_last_dim(int i) { return last_dims[i]; }
unsigned long long fake_last_param(int i) { return last_params[i]; }
int fake_last_nparams(void) { return last_nparams; }
const char* fake_last_entry(void) { return last_entry; }

static CUresult record_launch(void* st, function* f, const unsigned dims[7], const unsigned long long* params, int n);
static CUresult launch(function* f, const unsigned dims[7], const unsigned long long* values, int n) {
  if (dims[0] == 0 || dims[1] == 0 || dims[2] == 0 || dims[3] * dims[4] * dims[5] > 1024) return 1;
  launches++;
  memcpy(last_dims, dims, sizeof last_dims);
  memcpy(last_params, values, sizeof(values[0]) * n);
  last_nparams = n;
  snprintf(last_entry, sizeof last_entry, "%s", f->name);
  if (hook != NULL) return hook(f->m->ptx, f->name, dims[0], dims[1], dims[2], dims[3], dims[4], dims[5], values, n);
  return 0;
}

CUresult cuLaunchKernel(void* fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void* stream, void** params, void** extra) {
  NEED_CONTEXT();
  function* f = fn;
  if (f == NULL || extra != NULL) return 1;
  unsigned long long values[64];
  int n = f->nparams < 64 ? f->nparams : 64;
  for (int i = 0; i < n; i++) values[i] = *(unsigned long long*)params[i];
  unsigned dims[7] = {gx, gy, gz, bx, by, bz, shared};
  if (capturing(stream)) return record_launch(stream, f, dims, values, n);
  return launch(f, dims, values, n);
}

#include "fake_libcuda_graph.h"
