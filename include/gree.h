/*
 * gree.h — the C ABI of libgree.so, gree's compiler and runtime.
 *
 * Versioned: GREE_API_VERSION names the ABI this header describes; a library
 * reports the ABI it implements through gree_api_version(). Compatible
 * additions keep the number; anything else bumps it.
 *
 * Conventions
 * - Every call that can fail returns a gree_status_t. NULL means OK; any other
 *   value is an error the caller owns and frees with gree_status_free. Codes
 *   are IREE's (iree_status_code_t), the same numbers.
 * - Handles (gree_driver_t, gree_device_t, …) are opaque. Each out-parameter
 *   says who owns what it returns; every handle has a release call, and
 *   releasing NULL is a no-op.
 * - Strings are UTF-8 and NUL-terminated. "borrowed" strings live as long as
 *   the object named; "caller frees" ones are freed with gree_free.
 * - No call aborts the process: bad input, missing libraries and internal
 *   failures (including Go panics) come back as statuses.
 *
 * The block between GREE_CDEF_BEGIN and GREE_CDEF_END is plain C
 * declarations only: Python's iree_go reads it as its cffi cdef.
 */
#ifndef GREE_H_
#define GREE_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GREE_API_VERSION 1

/* libgree's own build defines GREE_TYPES_ONLY to take the types without the
 * function declarations (cgo writes its own prototypes for exported calls). */

/* GREE_CDEF_BEGIN */

/* ---- Types ------------------------------------------------------------- */

typedef enum gree_status_code_e {
  GREE_STATUS_OK = 0,
  GREE_STATUS_CANCELLED = 1,
  GREE_STATUS_UNKNOWN = 2,
  GREE_STATUS_INVALID_ARGUMENT = 3,
  GREE_STATUS_DEADLINE_EXCEEDED = 4,
  GREE_STATUS_NOT_FOUND = 5,
  GREE_STATUS_ALREADY_EXISTS = 6,
  GREE_STATUS_PERMISSION_DENIED = 7,
  GREE_STATUS_RESOURCE_EXHAUSTED = 8,
  GREE_STATUS_FAILED_PRECONDITION = 9,
  GREE_STATUS_ABORTED = 10,
  GREE_STATUS_OUT_OF_RANGE = 11,
  GREE_STATUS_UNIMPLEMENTED = 12,
  GREE_STATUS_INTERNAL = 13,
  GREE_STATUS_UNAVAILABLE = 14,
  GREE_STATUS_DATA_LOSS = 15,
  GREE_STATUS_UNAUTHENTICATED = 16
} gree_status_code_t;

/* NULL is OK; otherwise an error owned by the caller. */
typedef struct gree_status_s* gree_status_t;

typedef struct gree_driver_s* gree_driver_t;

/* One device a driver can create. Strings are borrowed from the object the
 * info came from. device_id is 0 for local devices, ordinal+1 for GPUs. */
typedef struct gree_device_info_t {
  int64_t device_id;
  const char* path;
  const char* name;
} gree_device_info_t;

typedef struct gree_device_info_list_s* gree_device_info_list_t;

typedef struct gree_device_s* gree_device_t;

#ifndef GREE_TYPES_ONLY

/* ---- Version ------------------------------------------------------------ */

/* The library's version, e.g. "0.1.0". Static storage: never free. */
const char* gree_version(void);

/* The ABI version the library implements (GREE_API_VERSION at its build). */
int32_t gree_api_version(void);

/* ---- Status ------------------------------------------------------------- */

/* The code of status (GREE_STATUS_OK for NULL). */
gree_status_code_t gree_status_code(gree_status_t status);

/* The message of status, formatted as IREE formats one: "<CODE>; <text>".
 * Borrowed: valid until gree_status_free(status). "" for NULL. */
const char* gree_status_message(gree_status_t status);

/* The upper-case name of a code, e.g. "NOT_FOUND". Static storage. */
const char* gree_status_code_string(gree_status_code_t code);

/* Frees status (NULL is a no-op). */
void gree_status_free(gree_status_t status);

/* Frees memory the library returned as "caller frees" (NULL is a no-op). */
void gree_free(void* ptr);

/* ---- Runtime flags ------------------------------------------------------ */

/* Parses runtime flags (--name=value, IREE's syntax, e.g.
 * "--cuda_default_index=1", "--hip_dylib_path=/opt/rocm/lib") into the
 * process-wide flag set. argv holds only flags (no program name); unknown
 * flags are INVALID_ARGUMENT. */
gree_status_t gree_flags_parse(size_t argc, const char* const* argv);

/* ---- HAL drivers -------------------------------------------------------- */

/* The number of registered drivers. */
size_t gree_driver_registry_count(void);

/* The name ("cuda") and full name ("NVIDIA CUDA HAL driver (via dylib)") of
 * the driver at index, in registration order. Both are static storage.
 * OUT_OF_RANGE if index >= gree_driver_registry_count(). */
gree_status_t gree_driver_registry_get(size_t index, const char** out_name,
                                       const char** out_full_name);

/* Creates the driver a URI's scheme names ("cuda", "cuda://0" → cuda). A
 * driver whose native library is missing is UNAVAILABLE with a message naming
 * it; an unknown name is NOT_FOUND.
 * out_driver: owned by the caller; release with gree_driver_release. */
gree_status_t gree_driver_create(const char* uri, gree_driver_t* out_driver);

/* Releases driver (NULL is a no-op). Devices created from it stay valid. */
void gree_driver_release(gree_driver_t driver);

/* The driver's name. Borrowed: valid while driver lives. */
const char* gree_driver_name(gree_driver_t driver);

/* Enumerates the driver's devices.
 * out_list: owned by the caller; release with gree_device_info_list_release. */
gree_status_t gree_driver_query_available_devices(
    gree_driver_t driver, gree_device_info_list_t* out_list);

/* The number of entries in list. */
size_t gree_device_info_list_size(gree_device_info_list_t list);

/* Entry index of list. out_info's strings are borrowed from list.
 * OUT_OF_RANGE past the end. */
gree_status_t gree_device_info_list_get(gree_device_info_list_t list,
                                        size_t index,
                                        gree_device_info_t* out_info);

/* Releases list (NULL is a no-op). */
void gree_device_info_list_release(gree_device_info_list_t list);

/* The --dump_devices text of one device (may be empty).
 * out_text: owned by the caller; free with gree_free. */
gree_status_t gree_driver_dump_device_info(gree_driver_t driver,
                                           int64_t device_id, char** out_text);

/* The text iree-run-module prints for --list_drivers, --list_devices[=d] and
 * --dump_devices[=d]. what is "list_drivers", "list_devices" or
 * "dump_devices"; driver is "" for all drivers.
 * out_text: owned by the caller; free with gree_free. */
gree_status_t gree_devices_report(const char* what, const char* driver,
                                  char** out_text);

/* ---- HAL devices -------------------------------------------------------- */

/* Creates the device with device_id (from gree_device_info_t).
 * out_device: owned by the caller; release with gree_device_release. */
gree_status_t gree_driver_create_device(gree_driver_t driver, int64_t device_id,
                                        gree_device_t* out_device);

/* Creates the device a URI names on driver: "cuda", "cuda:0", "cuda://0",
 * "cuda://GPU-<uuid>". The URI's scheme must be the driver's name.
 * out_device: owned by the caller; release with gree_device_release. */
gree_status_t gree_driver_create_device_by_uri(gree_driver_t driver,
                                               const char* uri,
                                               gree_device_t* out_device);

/* Creates the driver's default device.
 * out_device: owned by the caller; release with gree_device_release. */
gree_status_t gree_driver_create_default_device(gree_driver_t driver,
                                                gree_device_t* out_device);

/* The device identifier: its driver's name, e.g. "local-task". Borrowed:
 * valid while device lives. */
const char* gree_device_id(gree_device_t device);

/* The device's info. out_info's strings are borrowed from device. */
gree_status_t gree_device_info(gree_device_t device,
                               gree_device_info_t* out_info);

/* Releases device (NULL is a no-op). */
void gree_device_release(gree_device_t device);

/* ---- Tools -------------------------------------------------------------- */

/* Runs a command-line tool in process, as if exec'd with argv (argv[0] is
 * the program name; tool picks the tool: "iree-compile"). stdin_data is the
 * tool's standard input (may be NULL with stdin_size 0).
 * out_stdout / out_stderr: owned by the caller; free with gree_free (they are
 * NUL-terminated past their sizes for convenience). out_exit_code: the
 * tool's exit code. The status is an error only when the tool could not be
 * run at all (unknown tool); a tool's own failure is its exit code. */
gree_status_t gree_tool_run(const char* tool, size_t argc,
                            const char* const* argv, const uint8_t* stdin_data,
                            size_t stdin_size, uint8_t** out_stdout,
                            size_t* out_stdout_size, uint8_t** out_stderr,
                            size_t* out_stderr_size, int32_t* out_exit_code);

#endif  /* GREE_TYPES_ONLY */

/* GREE_CDEF_END */

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* GREE_H_ */
