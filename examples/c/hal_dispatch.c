/* Drives the HAL directly: allocates buffers on local-task, fills one on
 * the device's queue, records a command buffer that uploads data, runs a
 * module's kernel over the buffers and reads the result back, ordering it
 * all with a timeline semaphore and a fence.
 *
 * The kernel is the one element-wise product of IREE's simple_mul sample
 * (bindings: the output, then the two inputs, 4 floats each):
 *
 *   iree-compile --iree-hal-target-backends=vmvx samples/simple_mul.mlir -o mul.vmfb
 *   ./hal_dispatch mul.vmfb
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gree.h"

static int fail(const char* what, gree_status_t st) {
  fprintf(stderr, "%s: %s\n", what, gree_status_message(st));
  gree_status_free(st);
  return 1;
}

#define CHECK(what, call)                    \
  do {                                       \
    gree_status_t st_ = (call);              \
    if (st_) return fail((what), st_);       \
  } while (0)

static uint8_t* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t* data = malloc(n > 0 ? (size_t)n : 1);
  *size = fread(data, 1, (size_t)n, f);
  fclose(f);
  return data;
}

static gree_buffer_ref_t whole(gree_buffer_t b) {
  gree_buffer_ref_t r = {b, 0, 0, -1};
  return r;
}

/* Prints the code of a call expected to fail, and frees its status. */
static void expect_error(const char* what, gree_status_t st) {
  printf("%s: %s\n", what, st ? gree_status_code_string(gree_status_code(st)) : "OK (unexpected)");
  gree_status_free(st);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s mul.vmfb\n", argv[0]);
    return 2;
  }
  size_t size = 0;
  uint8_t* data = read_file(argv[1], &size);
  if (!data) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  gree_module_t module = NULL;
  gree_status_t st = gree_module_load(data, size, &module);
  free(data);
  if (st) return fail("loading the module", st);

  gree_driver_t driver = NULL;
  gree_device_t device = NULL;
  CHECK("driver", gree_driver_create("local-task", &driver));
  CHECK("device", gree_driver_create_default_device(driver, &device));

  /* The module's first executable, loaded on the device. */
  gree_executable_t exe = NULL;
  CHECK("executable", gree_executable_create(device, module, 0, &exe));
  printf("entry 0: %s\n", gree_executable_entry_name(exe, 0));

  /* Three device-local buffers of 4 floats. */
  gree_buffer_params_t params = {GREE_MEMORY_TYPE_DEVICE_LOCAL, 0, GREE_BUFFER_USAGE_DEFAULT};
  gree_buffer_t out = NULL, a = NULL, b = NULL;
  CHECK("allocate out", gree_allocator_allocate_buffer(device, params, 16, &out));
  CHECK("allocate a", gree_allocator_allocate_buffer(device, params, 16, &a));
  CHECK("allocate b", gree_allocator_allocate_buffer(device, params, 16, &b));

  /* A timeline: 1 when a is filled, 2 when the kernel is done. */
  gree_semaphore_t timeline = NULL;
  CHECK("semaphore", gree_device_create_semaphore(device, 0, &timeline));
  uint64_t one = 1, two = 2;
  gree_semaphore_list_t none = {0, NULL, NULL};
  gree_semaphore_list_t at1 = {1, &timeline, &one};
  gree_semaphore_list_t at2 = {1, &timeline, &two};

  /* a = 2.5 everywhere, filled on the queue. */
  float two_and_a_half = 2.5f;
  CHECK("queue fill", gree_device_queue_fill(device, none, at1, whole(a), &two_and_a_half, 4));

  /* A command buffer: upload b, then the kernel once a and b are there. */
  float b_values[4] = {1, 2, 3, 4};
  gree_command_buffer_t cb = NULL;
  CHECK("command buffer", gree_command_buffer_create(device, GREE_COMMAND_BUFFER_MODE_ONE_SHOT,
                                                     GREE_COMMAND_CATEGORY_ANY, 0, &cb));
  CHECK("begin", gree_command_buffer_begin(cb));
  CHECK("update", gree_command_buffer_update(cb, b_values, sizeof(b_values), whole(b)));
  CHECK("barrier", gree_command_buffer_execution_barrier(cb));
  gree_buffer_ref_t bindings[3] = {whole(out), whole(a), whole(b)};
  CHECK("dispatch", gree_command_buffer_dispatch(cb, exe, 0, 1, 1, 1, NULL, 0, bindings, 3));
  CHECK("end", gree_command_buffer_end(cb));
  CHECK("execute", gree_device_queue_execute(device, at1, at2, cb, NULL, 0));
  /* The queue keeps what the work uses: the caller may let go now. */
  gree_command_buffer_release(cb);
  gree_buffer_release(b);

  /* Wait for the kernel through a fence, then read the result. */
  gree_fence_t done = NULL;
  CHECK("fence", gree_fence_create_at(timeline, 2, &done));
  CHECK("wait", gree_fence_wait(done, -1));
  float result[4];
  CHECK("read", gree_device_transfer_d2h(device, out, 0, result, sizeof(result)));
  printf("out = %g %g %g %g\n", result[0], result[1], result[2], result[3]);

  /* The same bytes through a mapping (host-visible memory on the CPU). */
  void* mapped = NULL;
  CHECK("map", gree_buffer_map(out, GREE_MEMORY_ACCESS_READ, 0, 16, &mapped));
  printf("mapped out[3] = %g\n", ((const float*)mapped)[3]);

  gree_allocator_statistics_t stats;
  CHECK("statistics", gree_allocator_statistics(device, &stats));
  printf("device bytes allocated: %lld\n", (long long)stats.device_bytes_allocated);

  /* Misuse is an error, never a crash. */
  expect_error("wait past the value", gree_semaphore_wait(timeline, 3, 1000000));
  gree_buffer_release(a);
  gree_buffer_release(a); /* a second release does nothing */
  expect_error("use after release", gree_buffer_info(a, &(gree_buffer_info_t){0}));
  expect_error("NULL buffer", gree_buffer_map(NULL, GREE_MEMORY_ACCESS_READ, 0, 4, &mapped));
  expect_error("map out of range", gree_buffer_map(out, GREE_MEMORY_ACCESS_READ, 8, 16, &mapped));
  CHECK("fail", gree_semaphore_fail(timeline, GREE_STATUS_ABORTED, "stopped on purpose"));
  expect_error("wait on a failed semaphore", gree_semaphore_wait(timeline, 2, 0));

  gree_fence_release(done);
  gree_semaphore_release(timeline);
  gree_buffer_release(out);
  gree_executable_release(exe);
  gree_device_release(device);
  gree_driver_release(driver);
  gree_module_release(module);
  return 0;
}
