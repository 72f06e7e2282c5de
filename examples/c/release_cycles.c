/* Creates, uses and releases a device, a module and a context many times
 * over, and checks that releasing them frees what they held at once: the
 * open file descriptors (an llvm-cpu executable is a memory file and a
 * loaded shared object) and the resident memory stay flat, and the threads
 * of local-task devices do not pile up. Exits 1 if they grow.
 *
 *   iree-compile --iree-hal-target-backends=llvm-cpu samples/simple_mul.mlir -o mul.vmfb
 *   ./release_cycles mul.vmfb module simple_mul 10000
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gree.h"

static int fail(const char* what, gree_status_t st) {
  fprintf(stderr, "%s: %s\n", what, gree_status_message(st));
  gree_status_free(st);
  return 1;
}

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

/* count_entries returns the number of entries of a /proc directory. */
static long count_entries(const char* path) {
  DIR* d = opendir(path);
  if (!d) return -1;
  long n = 0;
  for (struct dirent* e; (e = readdir(d));) {
    if (e->d_name[0] != '.') ++n;
  }
  closedir(d);
  return n;
}

/* rss_kib returns the resident set size in KiB. */
static long rss_kib(void) {
  FILE* f = fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long kib = -1;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "VmRSS:", 6) == 0) kib = strtol(line + 6, NULL, 10);
  }
  fclose(f);
  return kib;
}

/* cycle creates a device, registers the module in a new context, calls
 * the function once and releases everything. */
static int cycle(gree_driver_t driver, const uint8_t* data, size_t size, const char* mod, const char* fn) {
  gree_status_t st;
  gree_module_t module = NULL;
  gree_device_t device = NULL;
  gree_context_t context = NULL;
  if ((st = gree_module_load(data, size, &module))) return fail("loading the module", st);
  if ((st = gree_driver_create_default_device(driver, &device))) return fail("device", st);
  if ((st = gree_context_create(device, &context))) return fail("context", st);
  if ((st = gree_context_add_module(context, module))) return fail("adding the module", st);
  const int64_t shape[1] = {4};
  const float a[4] = {1, 2, 3, 4};
  gree_buffer_view_t va = NULL;
  gree_value_list_t args = NULL, results = NULL;
  if ((st = gree_buffer_view_create(device, shape, 1, 0x21000020u, a, sizeof a, &va))) return fail("input", st);
  if ((st = gree_value_list_create(&args))) return fail("args", st);
  gree_value_list_push_buffer_view(args, va);
  gree_value_list_push_buffer_view(args, va);
  if ((st = gree_context_invoke(context, mod, fn, args, &results))) return fail("invoking", st);
  gree_value_list_release(results);
  gree_value_list_release(args);
  gree_buffer_view_release(va);
  gree_context_release(context);
  gree_device_release(device);
  gree_module_release(module);
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s module.vmfb module_name function cycles\n", argv[0]);
    return 2;
  }
  size_t size = 0;
  uint8_t* data = read_file(argv[1], &size);
  if (!data) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }
  long cycles = strtol(argv[4], NULL, 10);
  gree_driver_t driver = NULL;
  gree_status_t st = gree_driver_create("local-task", &driver);
  if (st) return fail("driver", st);
  long warm = cycles < 100 ? cycles : 100;
  for (long i = 0; i < warm; ++i) {
    if (cycle(driver, data, size, argv[2], argv[3])) return 1;
  }
  long fds0 = count_entries("/proc/self/fd"), threads0 = count_entries("/proc/self/task"), rss0 = rss_kib();
  for (long i = warm; i < cycles; ++i) {
    if (cycle(driver, data, size, argv[2], argv[3])) return 1;
  }
  long fds1 = count_entries("/proc/self/fd"), threads1 = count_entries("/proc/self/task"), rss1 = rss_kib();
  gree_driver_release(driver);
  free(data);
  printf("fds %ld -> %ld, threads %ld -> %ld, rss %ld -> %ld KiB\n", fds0, fds1, threads0, threads1, rss0, rss1);
  if (fds1 > fds0 + 2 || threads1 > threads0 + 4 || rss1 - rss0 > 5 * 1024) {
    fprintf(stderr, "resources grew over %ld cycles\n", cycles - warm);
    return 1;
  }
  return 0;
}
