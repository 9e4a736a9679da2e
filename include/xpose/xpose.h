/* The xpose C API: status codes, one-call transpositions and opaque plans, for any language
 * with a C FFI. Every function returns a status; xpose_last_error() gives the message of the
 * last failure on the calling thread. A failed call leaves the data as it was. */
#ifndef XPOSE_XPOSE_H
#define XPOSE_XPOSE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum xpose_status {
  XPOSE_SUCCESS = 0,
  XPOSE_INVALID_ARGUMENT = 1,
  XPOSE_UNSUPPORTED = 2,
  XPOSE_OUT_OF_MEMORY = 3,
  XPOSE_DEVICE_ERROR = 4,
  XPOSE_INTERNAL_ERROR = 5
} xpose_status;

typedef enum xpose_device {
  XPOSE_DEVICE_CPU = 0,
  XPOSE_DEVICE_CUDA = 1,
  XPOSE_DEVICE_FORCE_INT = 0x7fffffff /* keeps any int a valid value, so bad ones are caught */
} xpose_device;

typedef struct xpose_plan_s* xpose_plan;

/* Message of the last call on this thread if it failed ("" if it succeeded). */
const char* xpose_last_error(void);
const char* xpose_status_string(xpose_status status);

/* Dense row-major rows x cols matrix of elem_size-byte elements, on the CPU. */
xpose_status xpose_transpose_inplace(void* data, int64_t rows, int64_t cols, size_t elem_size);
xpose_status xpose_transpose(const void* src, void* dst, int64_t rows, int64_t cols,
                             size_t elem_size);

/* Plans: batch of `batch` dense row-major matrices; `device` says where the data lives.
 * Concurrent executions of one plan run one after another (they share its workspace). */
xpose_status xpose_plan_inplace(xpose_plan* plan, int64_t rows, int64_t cols, size_t elem_size,
                                int64_t batch, xpose_device device);
xpose_status xpose_plan_copy(xpose_plan* plan, int64_t rows, int64_t cols, size_t elem_size,
                             int64_t batch, xpose_device device);
xpose_status xpose_plan_execute_inplace(xpose_plan plan, void* data);
xpose_status xpose_plan_execute_copy(xpose_plan plan, const void* src, void* dst);
/* Writes the plan's description (NUL-terminated, truncated to size) into buffer. */
xpose_status xpose_plan_describe(xpose_plan plan, char* buffer, size_t size);
xpose_status xpose_plan_workspace_bytes(xpose_plan plan, size_t* bytes);
xpose_status xpose_plan_destroy(xpose_plan plan);

#ifdef __cplusplus
}
#endif

#endif /* XPOSE_XPOSE_H */
