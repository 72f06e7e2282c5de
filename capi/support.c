/* The parts of the C ABI written in C: status objects, lists and accessors
 * that need no Go. Kept free of cgo's exports so it can include the full
 * public header and be checked against it. */
#include <stdio.h>
#include <string.h>

#include "gree.h"
#include "internal.h"

static const char* const kCodeNames[] = {
    "OK",        "CANCELLED",          "UNKNOWN",           "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED", "NOT_FOUND",  "ALREADY_EXISTS",    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
    "UNIMPLEMENTED", "INTERNAL",       "UNAVAILABLE",       "DATA_LOSS",
    "UNAUTHENTICATED",
};

gree_status_t gree__status_new(uint32_t code, const char* message) {
  gree_status_t s = (gree_status_t)malloc(sizeof(*s));
  if (!s) return NULL; /* out of memory: nothing better to report */
  s->code = (gree_status_code_t)code;
  s->message = strdup(message ? message : "");
  return s;
}

gree_status_code_t gree_status_code(gree_status_t status) {
  return status ? status->code : GREE_STATUS_OK;
}

const char* gree_status_message(gree_status_t status) {
  return (status && status->message) ? status->message : "";
}

const char* gree_status_code_string(gree_status_code_t code) {
  if ((unsigned)code < sizeof(kCodeNames) / sizeof(kCodeNames[0])) {
    return kCodeNames[code];
  }
  return "UNKNOWN_CODE";
}

gree_status_t gree_status_allocate(gree_status_code_t code, const char* message) {
  if (code == GREE_STATUS_OK) return NULL;
  const char* name = gree_status_code_string(code);
  const char* text = message ? message : "";
  size_t n = strlen(name) + 2 + strlen(text) + 1;
  char* full = malloc(n);
  if (!full) return gree__status_new((uint32_t)code, text);
  snprintf(full, n, "%s; %s", name, text);
  gree_status_t s = gree__status_new((uint32_t)code, full);
  free(full);
  return s;
}

void gree_status_free(gree_status_t status) {
  if (!status) return;
  free(status->message);
  free(status);
}

void gree_free(void* ptr) { free(ptr); }

struct gree_device_info_list_s* gree__device_info_list_new(size_t count) {
  struct gree_device_info_list_s* l = calloc(1, sizeof(*l));
  if (!l) return NULL;
  l->count = count;
  l->items = calloc(count ? count : 1, sizeof(gree_device_info_t));
  if (!l->items) {
    free(l);
    return NULL;
  }
  return l;
}

void gree__device_info_list_set(struct gree_device_info_list_s* list,
                                size_t i, int64_t id, char* path, char* name) {
  list->items[i].device_id = id;
  list->items[i].path = path;
  list->items[i].name = name;
}

size_t gree_device_info_list_size(gree_device_info_list_t list) {
  return list ? list->count : 0;
}

gree_status_t gree_device_info_list_get(gree_device_info_list_t list,
                                        size_t index,
                                        gree_device_info_t* out_info) {
  if (!list || !out_info) {
    return gree__status_new(GREE_STATUS_INVALID_ARGUMENT,
                            "INVALID_ARGUMENT; list and out_info must not be NULL");
  }
  if (index >= list->count) {
    return gree__status_new(GREE_STATUS_OUT_OF_RANGE,
                            "OUT_OF_RANGE; device list index out of range");
  }
  *out_info = list->items[index];
  return NULL;
}

void gree_device_info_list_release(gree_device_info_list_t list) {
  if (!list) return;
  for (size_t i = 0; i < list->count; ++i) {
    free((void*)list->items[i].path);
    free((void*)list->items[i].name);
  }
  free(list->items);
  free(list);
}

const char* gree__argv_at(const char* const* argv, size_t i) {
  return argv[i];
}

/* DLPack export: the deleter releases the exported buffer's handle and
 * frees the struct and its shape (one allocation). */
#include "dlpack.h"

static void gree__dl_deleter(gree__dl_managed* self) {
  gree_buffer_release((gree_buffer_t)self->manager_ctx);
  free(self);
}

gree__dl_managed* gree__dl_new(int32_t ndim) {
  size_t n = ndim > 0 ? (size_t)ndim : 1;
  gree__dl_managed* m = calloc(1, sizeof(gree__dl_managed) + n * sizeof(int64_t));
  if (!m) return NULL;
  m->dl_tensor.ndim = ndim;
  m->dl_tensor.shape = (int64_t*)(m + 1);
  m->deleter = gree__dl_deleter;
  return m;
}
