/* Private to libgree: helpers the Go side calls. */
#ifndef GREE_CAPI_INTERNAL_H_
#define GREE_CAPI_INTERNAL_H_

#define GREE_TYPES_ONLY
#include "gree.h"

#include <stdlib.h>

struct gree_status_s {
  gree_status_code_t code;
  char* message;
};

/* Handles are addresses in a range gree reserves (see handles.go); these
 * convert them to and from the integers Go keeps them as. */
static inline void* gree__handle(uintptr_t h) { return (void*)h; }
static inline uintptr_t gree__handle_id(const void* p) { return (uintptr_t)p; }

/* Calls an import's release callback (Go cannot call C function
 * pointers). */
static inline void gree__call_release(gree_release_fn_t fn, void* user) {
  if (fn) fn(user);
}

/* Calls a trace sink (Go cannot call C function pointers). */
static inline gree_status_t gree__call_trace(gree_trace_fn_t fn, void* user,
                                             const char* key,
                                             gree_value_list_t views) {
  return fn(user, key, views);
}

/* A device list: C memory only. */
struct gree_device_info_list_s {
  size_t count;
  gree_device_info_t* items;
};

#define GREE_HIDDEN __attribute__((visibility("hidden")))

GREE_HIDDEN gree_status_t gree__status_new(uint32_t code, const char* message);
GREE_HIDDEN struct gree_device_info_list_s* gree__device_info_list_new(
    size_t count);
GREE_HIDDEN void gree__device_info_list_set(
    struct gree_device_info_list_s* list, size_t i, int64_t id, char* path,
    char* name);
GREE_HIDDEN const char* gree__argv_at(const char* const* argv, size_t i);

#endif  /* GREE_CAPI_INTERNAL_H_ */
