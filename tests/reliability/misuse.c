/* C ABI misuse cases for gree's reliability suite: NULL, released and
 * double-released handles, handles of the wrong kind, bad sizes and names.
 * Every call the ABI can tell is wrong must return an error status (and
 * never crash); releases of bad handles must do nothing.
 *
 *   misuse count            prints the number of cases
 *   misuse MODULE.vmfb START runs cases START.. printing "start I" and
 *                           "done I rejected CODE" / "done I accepted" (a
 *                           release: nothing to check) / "done I failed"
 *                           (a misuse returned OK)
 *
 * MODULE.vmfb is samples/simple_mul.mlir compiled (module "arithmetic",
 * function "simple_mul", two tensor<4xf32>). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gree.h"

#define F32 0x21000020u

static gree_driver_t drv;
static gree_device_t dev;
static uint8_t* vmfb;
static size_t vmfb_size;

/* Each case returns a status (NULL: the misuse was accepted) or sets
 * *no_status for calls that return nothing. */
typedef gree_status_t (*case_fn)(int* no_status);

static gree_module_t load(void) {
  gree_module_t m = NULL;
  gree_status_t s = gree_module_load(vmfb, vmfb_size, &m);
  if (s) { fprintf(stderr, "setup: module load failed\n"); exit(3); }
  return m;
}

static gree_context_t context(gree_module_t m) {
  gree_context_t c = NULL;
  if (gree_context_create(dev, &c) || gree_context_add_module(c, m)) { fprintf(stderr, "setup: context\n"); exit(3); }
  return c;
}

static gree_buffer_view_t view4(void) {
  float v[4] = {1, 2, 3, 4};
  int64_t shape[1] = {4};
  gree_buffer_view_t bv = NULL;
  if (gree_buffer_view_create(dev, shape, 1, F32, v, sizeof v, &bv)) { fprintf(stderr, "setup: view\n"); exit(3); }
  return bv;
}

/* Handles of one kind passed as another (the ABI's handles are tagged). */
#define AS(T, h) ((T)(void*)(h))

static gree_status_t c_null_driver_uri(int* n) { (void)n; gree_driver_t d; return gree_driver_create(NULL, &d); }
static gree_status_t c_null_out_driver(int* n) { (void)n; return gree_driver_create("local-sync", NULL); }
static gree_status_t c_bad_driver(int* n) { (void)n; gree_driver_t d; return gree_driver_create("no-such", &d); }
static gree_status_t c_null_driver_device(int* n) { (void)n; gree_device_t d; return gree_driver_create_default_device(NULL, &d); }
static gree_status_t c_released_driver(int* n) {
  (void)n; gree_driver_t d = NULL; gree_device_t x;
  if (gree_driver_create("local-sync", &d)) return NULL;
  gree_driver_release(d);
  return gree_driver_create_default_device(d, &x);
}
static gree_status_t c_double_release_driver(int* n) {
  gree_driver_t d = NULL;
  if (gree_driver_create("local-sync", &d)) return NULL;
  gree_driver_release(d); gree_driver_release(d); *n = 1; return NULL;
}
static gree_status_t c_device_as_driver(int* n) { (void)n; gree_device_t d; return gree_driver_create_default_device(AS(gree_driver_t, dev), &d); }
static gree_status_t c_null_module_data(int* n) { (void)n; gree_module_t m; return gree_module_load(NULL, 100, &m); }
static gree_status_t c_zero_module(int* n) { (void)n; gree_module_t m; return gree_module_load(vmfb, 0, &m); }
static gree_status_t c_short_module(int* n) { (void)n; gree_module_t m; return gree_module_load(vmfb, vmfb_size / 2, &m); }
static gree_status_t c_null_out_module(int* n) { (void)n; return gree_module_load(vmfb, vmfb_size, NULL); }
static gree_status_t c_released_module_add(int* n) {
  (void)n; gree_module_t m = load(); gree_context_t c = NULL;
  gree_module_release(m);
  if (gree_context_create(dev, &c)) return NULL;
  gree_status_t s = gree_context_add_module(c, m);
  gree_context_release(c);
  return s;
}
static gree_status_t c_double_release_module(int* n) { gree_module_t m = load(); gree_module_release(m); gree_module_release(m); *n = 1; return NULL; }
static gree_status_t c_module_info_oob(int* n) {
  (void)n; gree_module_t m = load(); const char *a, *b, *c;
  gree_status_t s = gree_module_function_info(m, 1000, &a, &b, &c);
  gree_module_release(m); return s;
}
static gree_status_t c_module_count_null(int* n) { *n = 1; return gree_module_function_count(NULL) == 0 ? NULL : gree_status_allocate(GREE_STATUS_INTERNAL, "count"); }
static gree_status_t c_null_device_context(int* n) { (void)n; gree_context_t c; return gree_context_create(NULL, &c); }
static gree_status_t c_driver_as_device(int* n) { (void)n; gree_context_t c; return gree_context_create(AS(gree_device_t, drv), &c); }
static gree_status_t c_released_device_context(int* n) {
  (void)n; gree_device_t d = NULL; gree_context_t c;
  if (gree_driver_create_default_device(drv, &d)) return NULL;
  gree_device_release(d);
  return gree_context_create(d, &c);
}
static gree_status_t c_double_release_device(int* n) {
  gree_device_t d = NULL;
  if (gree_driver_create_default_device(drv, &d)) return NULL;
  gree_device_release(d); gree_device_release(d); *n = 1; return NULL;
}
static gree_status_t c_module_as_context(int* n) { (void)n; gree_module_t m = load(); gree_status_t s = gree_context_add_module(AS(gree_context_t, m), m); gree_module_release(m); return s; }
static gree_status_t c_context_as_module(int* n) {
  (void)n; gree_module_t m = load(); gree_context_t c = context(m);
  gree_status_t s = gree_context_add_module(c, AS(gree_module_t, c));
  gree_context_release(c); gree_module_release(m); return s;
}
static gree_status_t c_invoke_null_ctx(int* n) { (void)n; gree_value_list_t r; return gree_context_invoke(NULL, "arithmetic", "simple_mul", NULL, &r); }
static gree_status_t c_invoke_released_ctx(int* n) {
  (void)n; gree_module_t m = load(); gree_context_t c = context(m); gree_value_list_t r;
  gree_context_release(c);
  gree_status_t s = gree_context_invoke(c, "arithmetic", "simple_mul", NULL, &r);
  gree_module_release(m); return s;
}
static gree_status_t c_invoke_null_names(int* n) {
  (void)n; gree_module_t m = load(); gree_context_t c = context(m); gree_value_list_t r;
  gree_status_t s = gree_context_invoke(c, NULL, NULL, NULL, &r);
  gree_context_release(c); gree_module_release(m); return s;
}
static gree_status_t c_invoke_missing_fn(int* n) {
  (void)n; gree_module_t m = load(); gree_context_t c = context(m); gree_value_list_t r;
  gree_status_t s = gree_context_invoke(c, "arithmetic", "no_such", NULL, &r);
  gree_context_release(c); gree_module_release(m); return s;
}
static gree_status_t c_invoke_no_args(int* n) {
  (void)n; gree_module_t m = load(); gree_context_t c = context(m); gree_value_list_t r;
  gree_status_t s = gree_context_invoke(c, "arithmetic", "simple_mul", NULL, &r);
  gree_context_release(c); gree_module_release(m); return s;
}
static gree_status_t c_invoke_released_arg(int* n) {
  (void)n; gree_module_t m = load(); gree_context_t c = context(m); gree_value_list_t args = NULL, r;
  gree_buffer_view_t v = view4();
  gree_value_list_create(&args);
  gree_value_list_push_buffer_view(args, v);
  gree_value_list_push_buffer_view(args, v);
  gree_value_list_release(args);
  gree_status_t s = gree_context_invoke(c, "arithmetic", "simple_mul", args, &r);
  gree_buffer_view_release(v); gree_context_release(c); gree_module_release(m); return s;
}
static gree_status_t c_invoke_null_out(int* n) {
  (void)n; gree_module_t m = load(); gree_context_t c = context(m);
  gree_status_t s = gree_context_invoke(c, "arithmetic", "simple_mul", NULL, NULL);
  gree_context_release(c); gree_module_release(m); return s;
}
static gree_status_t c_view_null_shape(int* n) { (void)n; gree_buffer_view_t v; float f[4] = {0}; return gree_buffer_view_create(dev, NULL, 1, F32, f, sizeof f, &v); }
static gree_status_t c_view_short_data(int* n) { (void)n; gree_buffer_view_t v; float f[4] = {0}; int64_t sh[1] = {8}; return gree_buffer_view_create(dev, sh, 1, F32, f, sizeof f, &v); }
static gree_status_t c_view_negative_dim(int* n) { (void)n; gree_buffer_view_t v; int64_t sh[1] = {-4}; return gree_buffer_view_create(dev, sh, 1, F32, NULL, 0, &v); }
static gree_status_t c_view_huge(int* n) { (void)n; gree_buffer_view_t v; int64_t sh[2] = {1LL << 40, 1LL << 40}; return gree_buffer_view_create(dev, sh, 2, F32, NULL, 0, &v); }
static gree_status_t c_view_bad_type(int* n) { (void)n; gree_buffer_view_t v; float f[4] = {0}; int64_t sh[1] = {4}; return gree_buffer_view_create(dev, sh, 1, 0xdeadbeefu, f, sizeof f, &v); }
static gree_status_t c_view_read_small(int* n) {
  (void)n; gree_buffer_view_t v = view4(); float f[2];
  gree_status_t s = gree_buffer_view_read(v, f, sizeof f);
  gree_buffer_view_release(v); return s;
}
static gree_status_t c_view_read_released(int* n) {
  (void)n; gree_buffer_view_t v = view4(); float f[4];
  gree_buffer_view_release(v);
  return gree_buffer_view_read(v, f, sizeof f);
}
static gree_status_t c_double_release_view(int* n) { gree_buffer_view_t v = view4(); gree_buffer_view_release(v); gree_buffer_view_release(v); *n = 1; return NULL; }
static gree_status_t c_list_push_wrong_kind(int* n) {
  (void)n; gree_value_list_t l = NULL;
  gree_value_list_create(&l);
  gree_status_t s = gree_value_list_push_buffer_view(l, AS(gree_buffer_view_t, dev));
  gree_value_list_release(l); return s;
}
static gree_status_t c_list_get_oob(int* n) {
  (void)n; gree_value_list_t l = NULL; gree_value_type_t t; int64_t i; double f; gree_buffer_view_t v; gree_value_list_t x;
  gree_value_list_create(&l);
  gree_status_t s = gree_value_list_get(l, 3, &t, &i, &f, &v, &x);
  gree_value_list_release(l); return s;
}
static gree_status_t c_list_into_itself_released(int* n) {
  (void)n; gree_value_list_t l = NULL, m = NULL;
  gree_value_list_create(&l); gree_value_list_create(&m);
  gree_value_list_release(m);
  gree_status_t s = gree_value_list_push_list(l, m);
  gree_value_list_release(l); return s;
}
static gree_status_t c_semaphore_released(int* n) {
  (void)n; gree_semaphore_t sem = NULL;
  if (gree_device_create_semaphore(dev, 0, &sem)) return NULL;
  gree_semaphore_release(sem);
  return gree_semaphore_signal(sem, 1);
}
static gree_status_t c_fence_wrong_kind(int* n) { (void)n; gree_fence_t f; return gree_fence_create_at(AS(gree_semaphore_t, dev), 1, &f); }
static gree_status_t c_alloc_huge(int* n) {
  (void)n; gree_buffer_t b; gree_buffer_params_t p = {GREE_MEMORY_TYPE_DEVICE_LOCAL, 0, GREE_BUFFER_USAGE_DEFAULT};
  return gree_allocator_allocate_buffer(dev, p, UINT64_MAX / 2, &b);
}
static gree_status_t c_executable_oob(int* n) {
  (void)n; gree_module_t m = load(); gree_executable_t x;
  gree_status_t s = gree_executable_create(dev, m, 99, &x);
  gree_module_release(m); return s;
}
static gree_status_t c_command_buffer_released_device(int* n) {
  (void)n; gree_device_t d = NULL; gree_command_buffer_t cb;
  if (gree_driver_create_default_device(drv, &d)) return NULL;
  gree_device_release(d);
  return gree_command_buffer_create(d, GREE_COMMAND_BUFFER_MODE_ONE_SHOT, GREE_COMMAND_CATEGORY_ANY, 0, &cb);
}
static gree_status_t c_garbage_handle(int* n) { (void)n; gree_context_t c; return gree_context_create(AS(gree_device_t, (uintptr_t)0x12345678), &c); }
static gree_status_t c_release_garbage(int* n) { gree_context_release(AS(gree_context_t, (uintptr_t)0x1000)); gree_module_release(AS(gree_module_t, dev)); *n = 1; return NULL; }

static const case_fn CASES[] = {
    c_null_driver_uri, c_null_out_driver, c_bad_driver, c_null_driver_device, c_released_driver,
    c_double_release_driver, c_device_as_driver, c_null_module_data, c_zero_module, c_short_module,
    c_null_out_module, c_released_module_add, c_double_release_module, c_module_info_oob, c_module_count_null,
    c_null_device_context, c_driver_as_device, c_released_device_context, c_double_release_device,
    c_module_as_context, c_context_as_module, c_invoke_null_ctx, c_invoke_released_ctx, c_invoke_null_names,
    c_invoke_missing_fn, c_invoke_no_args, c_invoke_released_arg, c_invoke_null_out, c_view_null_shape,
    c_view_short_data, c_view_negative_dim, c_view_huge, c_view_bad_type, c_view_read_small, c_view_read_released,
    c_double_release_view, c_list_push_wrong_kind, c_list_get_oob, c_list_into_itself_released,
    c_semaphore_released, c_fence_wrong_kind, c_alloc_huge, c_executable_oob, c_command_buffer_released_device,
    c_garbage_handle, c_release_garbage,
};
#define NCASES (sizeof CASES / sizeof CASES[0])

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "count") == 0) {
    printf("%zu\n", (size_t)NCASES);
    return 0;
  }
  if (argc != 3) {
    fprintf(stderr, "usage: misuse count | misuse MODULE.vmfb START\n");
    return 2;
  }
  FILE* f = fopen(argv[1], "rb");
  if (!f) { perror(argv[1]); return 2; }
  fseek(f, 0, SEEK_END);
  vmfb_size = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  vmfb = malloc(vmfb_size);
  if (!vmfb || fread(vmfb, 1, vmfb_size, f) != vmfb_size) { fprintf(stderr, "cannot read %s\n", argv[1]); return 2; }
  fclose(f);
  if (gree_driver_create("local-task", &drv) || gree_driver_create_default_device(drv, &dev)) {
    fprintf(stderr, "setup: no local-task device\n");
    return 3;
  }
  for (size_t i = (size_t)atoi(argv[2]); i < NCASES; i++) {
    printf("start %zu\n", i);
    fflush(stdout);
    int no_status = 0;
    gree_status_t s = CASES[i](&no_status);
    if (no_status) {
      printf("done %zu accepted (a release: nothing to report)\n", i);
    } else if (s) {
      printf("done %zu rejected code %d\n", i, (int)gree_status_code(s));
      gree_status_free(s);
    } else {
      printf("done %zu failed: the misuse returned OK\n", i);
    }
    fflush(stdout);
  }
  gree_device_release(dev);
  gree_driver_release(drv);
  free(vmfb);
  return 0;
}
