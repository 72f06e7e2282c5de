/* Private to libgree: DLPack's tensor structs (dlpack.h, the 0.x ABI that
 * numpy and PyTorch exchange in "dltensor" capsules), declared here so that
 * gree needs no copy of the header. */
#ifndef GREE_CAPI_DLPACK_H_
#define GREE_CAPI_DLPACK_H_

#include <stdint.h>

typedef struct {
  int32_t device_type; /* 1: CPU */
  int32_t device_id;
} gree__dl_device;

typedef struct {
  uint8_t code; /* 0 int, 1 uint, 2 float, 4 bfloat, 5 complex, 6 bool, 7.. f8 */
  uint8_t bits;
  uint16_t lanes;
} gree__dl_dtype;

typedef struct {
  void* data;
  gree__dl_device device;
  int32_t ndim;
  gree__dl_dtype dtype;
  int64_t* shape;
  int64_t* strides; /* NULL: compact row-major */
  uint64_t byte_offset;
} gree__dl_tensor;

typedef struct gree__dl_managed {
  gree__dl_tensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(struct gree__dl_managed* self);
} gree__dl_managed;

/* Calls a managed tensor's deleter (Go cannot call C function pointers). */
static inline void gree__dl_delete(void* m) {
  gree__dl_managed* t = (gree__dl_managed*)m;
  if (t && t->deleter) t->deleter(t);
}

/* A managed tensor exporting a gree buffer: manager_ctx is a gree_buffer_t
 * handle the deleter releases. Defined in support.c. */
__attribute__((visibility("hidden"))) gree__dl_managed* gree__dl_new(int32_t ndim);

#endif /* GREE_CAPI_DLPACK_H_ */
