/* Private to libgree: the layout of the handles behind include/gree.h's
 * opaque types, and helpers the Go side calls. */
#ifndef GREE_CAPI_INTERNAL_H_
#define GREE_CAPI_INTERNAL_H_

#define GREE_TYPES_ONLY
#include "gree.h"

#include <stdlib.h>

struct gree_status_s {
  gree_status_code_t code;
  char* message;
};

/* A driver: a cgo.Handle to the Go hal.Driver plus its name. */
struct gree_driver_s {
  uintptr_t handle;
  char* name;
};

/* A device: a cgo.Handle to the Go hal.Device plus copies of its strings. */
struct gree_device_s {
  uintptr_t handle;
  char* id;
  gree_device_info_t info;
};

/* Modules, contexts, buffer views and value lists: a cgo.Handle to the Go
 * object (the Go side keeps the C strings a module hands out). */
struct gree_module_s {
  uintptr_t handle;
};
struct gree_context_s {
  uintptr_t handle;
};
struct gree_buffer_view_s {
  uintptr_t handle;
};
struct gree_value_list_s {
  uintptr_t handle;
};

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
