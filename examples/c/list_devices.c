/* Lists gree's HAL drivers and the devices each can see, through libgree's
 * C ABI. Build: cc -I include examples/c/list_devices.c -L build -lgree
 * Run:   LD_LIBRARY_PATH=build ./a.out            (all drivers)
 *        LD_LIBRARY_PATH=build ./a.out local-task (one driver) */
#include <stdio.h>
#include <string.h>

#include "gree.h"

/* Prints a failed status and frees it; returns 1 if there was one. */
static int report(const char* what, gree_status_t status) {
  if (!status) return 0;
  printf("    (%s failed: %s)\n", what, gree_status_message(status));
  gree_status_free(status);
  return 1;
}

static void list_devices(const char* driver_name) {
  gree_driver_t driver = NULL;
  if (report("driver creation", gree_driver_create(driver_name, &driver))) {
    return;
  }
  gree_device_info_list_t list = NULL;
  if (!report("device query",
              gree_driver_query_available_devices(driver, &list))) {
    for (size_t i = 0; i < gree_device_info_list_size(list); ++i) {
      gree_device_info_t info;
      if (report("list access", gree_device_info_list_get(list, i, &info))) {
        break;
      }
      printf("    %s://%s  device_id=%lld  name=%s\n", driver_name, info.path,
             (long long)info.device_id, info.name);
    }
    gree_device_info_list_release(list);
  }
  /* Create the default device to show the whole life cycle. */
  gree_device_t device = NULL;
  if (!report("default device creation",
              gree_driver_create_default_device(driver, &device))) {
    printf("    default device: %s\n", gree_device_id(device));
    gree_device_release(device);
  }
  gree_driver_release(driver);
}

int main(int argc, char** argv) {
  if (gree_api_version() != GREE_API_VERSION) {
    fprintf(stderr, "libgree implements C ABI %d, this program was built for %d\n",
            gree_api_version(), GREE_API_VERSION);
    return 1;
  }
  printf("gree %s (C ABI %d)\n", gree_version(), gree_api_version());
  printf("drivers:\n");
  size_t count = gree_driver_registry_count();
  for (size_t i = 0; i < count; ++i) {
    const char* name = NULL;
    const char* full_name = NULL;
    gree_status_t status = gree_driver_registry_get(i, &name, &full_name);
    if (status) {
      fprintf(stderr, "%s\n", gree_status_message(status));
      gree_status_free(status);
      return 1;
    }
    if (argc > 1 && strcmp(argv[1], name) != 0) continue;
    printf("  %s: %s\n", name, full_name);
    list_devices(name);
  }
  /* An unknown driver is an error with a message, not a crash. */
  gree_driver_t driver = NULL;
  gree_status_t status = gree_driver_create("no-such-driver", &driver);
  printf("unknown driver: %s (%s)\n", gree_status_code_string(gree_status_code(status)),
         gree_status_message(status));
  gree_status_free(status);
  return 0;
}
