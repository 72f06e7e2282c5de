/* Loads a compiled module (.vmfb), calls one of its functions with two
 * f32 tensors of 4 elements on local-task, and prints the result the way
 * iree-run-module does.
 *
 *   iree-compile --iree-hal-target-backends=vmvx samples/simple_mul.mlir -o mul.vmfb
 *   ./run_module mul.vmfb arithmetic simple_mul
 */
#include <stdio.h>
#include <stdlib.h>

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

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s module.vmfb module_name function\n", argv[0]);
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
  free(data); /* the library keeps its own copy */
  if (st) return fail("loading the module", st);
  for (size_t i = 0; i < gree_module_function_count(module); ++i) {
    const char *name, *cconv;
    if ((st = gree_module_function_info(module, i, &name, &cconv, NULL))) return fail("function info", st);
    printf("export %s(%s)\n", name, cconv);
  }

  gree_driver_t driver = NULL;
  gree_device_t device = NULL;
  gree_context_t context = NULL;
  if ((st = gree_driver_create("local-task", &driver))) return fail("driver", st);
  if ((st = gree_driver_create_default_device(driver, &device))) return fail("device", st);
  if ((st = gree_context_create(device, &context))) return fail("context", st);
  if ((st = gree_context_add_module(context, module))) return fail("adding the module", st);

  const int64_t shape[1] = {4};
  const float a[4] = {1, 2, 3, 4}, b[4] = {4, 5, 6, 7};
  gree_buffer_view_t va = NULL, vb = NULL;
  if ((st = gree_buffer_view_create(device, shape, 1, 0x21000020u, a, sizeof a, &va))) return fail("input 0", st);
  if ((st = gree_buffer_view_create(device, shape, 1, 0x21000020u, b, sizeof b, &vb))) return fail("input 1", st);
  gree_value_list_t args = NULL, results = NULL;
  if ((st = gree_value_list_create(&args))) return fail("args", st);
  gree_value_list_push_buffer_view(args, va);
  gree_value_list_push_buffer_view(args, vb);
  if ((st = gree_context_invoke(context, argv[2], argv[3], args, &results))) return fail("invoking", st);

  for (size_t i = 0; i < gree_value_list_size(results); ++i) {
    gree_value_type_t type;
    gree_buffer_view_t view = NULL;
    if ((st = gree_value_list_get(results, i, &type, NULL, NULL, &view, NULL))) return fail("result", st);
    if (type == GREE_VALUE_BUFFER_VIEW) {
      char* text = NULL;
      if ((st = gree_buffer_view_format(view, 1024, &text))) return fail("format", st);
      printf("result[%zu]: hal.buffer_view\n%s\n", i, text);
      gree_free(text);
      gree_buffer_view_release(view);
    }
  }
  /* A wrong call is a status, not a crash. */
  st = gree_context_invoke(context, argv[2], argv[3], NULL, &results);
  if (st) {
    printf("bad call: %s\n", gree_status_code_string(gree_status_code(st)));
    gree_status_free(st);
  }
  gree_value_list_release(results);
  gree_value_list_release(args);
  gree_buffer_view_release(va);
  gree_buffer_view_release(vb);
  gree_context_release(context);
  gree_device_release(device);
  gree_driver_release(driver);
  gree_module_release(module);
  return 0;
}
