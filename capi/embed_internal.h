/* Private to libgree: calling the function pointers of the compiler
 * embedding API (Go cannot call C function pointers). */
#ifndef GREE_CAPI_EMBED_INTERNAL_H_
#define GREE_CAPI_EMBED_INTERNAL_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

typedef void (*gree__embed_name_fn)(const char*, void*);
typedef void (*gree__embed_flag_fn)(const char*, size_t, void*);
typedef void (*gree__embed_diag_fn)(int, const char*, size_t, void*);
typedef void (*gree__embed_source_fn)(void*, void*);

static inline void gree__embed_call_name(void* fn, const char* s, void* user) {
  ((gree__embed_name_fn)fn)(s, user);
}
static inline void gree__embed_call_flag(void* fn, const char* s, size_t n, void* user) {
  ((gree__embed_flag_fn)fn)(s, n, user);
}
static inline void gree__embed_call_diag(void* fn, int sev, const char* s, size_t n, void* user) {
  ((gree__embed_diag_fn)fn)(sev, s, n, user);
}
static inline void gree__embed_call_source(void* fn, void* src, void* user) {
  ((gree__embed_source_fn)fn)(src, user);
}

#endif  /* GREE_CAPI_EMBED_INTERNAL_H_ */
