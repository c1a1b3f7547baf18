/*
 * dup(fd) for the per-core runtime (engine/runtime): each engine thread listens on its own duplicate
 * of a shared listening socket, because a node server owns its fd and closes it on close().
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <node_api.h>

static napi_value dup_fd(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value arg;
  int32_t fd = -1;
  if (napi_get_cb_info(env, info, &argc, &arg, NULL, NULL) != napi_ok || argc != 1 ||
      napi_get_value_int32(env, arg, &fd) != napi_ok || fd < 0) {
    napi_throw_type_error(env, NULL, "dup(fd): fd must be a non-negative integer");
    return NULL;
  }
  int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (copy < 0) {
    napi_throw_error(env, NULL, strerror(errno));
    return NULL;
  }
  napi_value result;
  napi_create_int32(env, copy, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "dup", NAPI_AUTO_LENGTH, dup_fd, NULL, &fn);
  napi_set_named_property(env, exports, "dup", fn);
  return exports;
}
