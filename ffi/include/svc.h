/*
 * svc C ABI, contract version 2 (docs/c-abi.md, §4.15).
 *
 * libsvc_ffi starts a Node engine host process per handle and forwards each call to it; calls on one
 * handle are serialised, so a handle may be shared between threads.
 *
 * Conventions:
 *  - Failure sentinels: 0 for svc_create_imposter, -1 for int32_t functions, NULL for string functions.
 *  - Every function clears the calling thread's last error on entry and sets it on failure; read it
 *    with svc_last_error() right after a sentinel (svc_last_error and svc_free leave it as it is).
 *  - Every returned char* (svc_last_error included) is released with svc_free, except svc_build_info.
 *  - A handle is freed exactly once with svc_stop.
 *  - Each function returns the JSON the matching admin-HTTP route returns (without `_links`: the
 *    in-process surface has no base URL).
 *  - If the engine host dies, every call on the handle returns its sentinel with a last error saying so.
 */
#ifndef SVC_H
#define SVC_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SVC_ABI_VERSION 2

typedef struct SvcHandle SvcHandle;

/* Engine host: `node` from PATH (env SVC_FFI_NODE overrides) running the host script next to the
 * library's repository (env SVC_FFI_HOST overrides its path). NULL on failure. */
SvcHandle *svc_start(void);
void svc_stop(SvcHandle *handle);

uint16_t svc_create_imposter(SvcHandle *handle, const char *json);
int32_t svc_replace_stubs(SvcHandle *handle, uint16_t port, const char *json);
int32_t svc_delete_imposter(SvcHandle *handle, uint16_t port);
int32_t svc_delete_all(SvcHandle *handle);
char *svc_recorded(SvcHandle *handle, uint16_t port);
char *svc_verify(SvcHandle *handle, uint16_t port, const char *body_json);
char *svc_stub_warnings(SvcHandle *handle, uint16_t port);
char *svc_apply_config(SvcHandle *handle, const char *json);

char *svc_flow_state_get(SvcHandle *handle, uint16_t port, const char *flow_id, const char *key);
int32_t svc_flow_state_put(SvcHandle *handle, uint16_t port, const char *flow_id, const char *key, const char *value_json);
int32_t svc_flow_state_delete(SvcHandle *handle, uint16_t port, const char *flow_id, const char *key);

int32_t svc_space_add_stub(SvcHandle *handle, uint16_t port, const char *flow_id, const char *stub_json);
char *svc_space_list_stubs(SvcHandle *handle, uint16_t port, const char *flow_id);
int32_t svc_space_delete(SvcHandle *handle, uint16_t port, const char *flow_id);
char *svc_space_recorded(SvcHandle *handle, uint16_t port, const char *flow_id);

char *svc_list_imposters(SvcHandle *handle, const char *options_json);
char *svc_get_imposter(SvcHandle *handle, uint16_t port, const char *options_json);
int32_t svc_add_stub(SvcHandle *handle, uint16_t port, const char *stub_json, int32_t index);
char *svc_get_stub(SvcHandle *handle, uint16_t port, const char *ref_json);
int32_t svc_update_stub(SvcHandle *handle, uint16_t port, const char *ref_json, const char *stub_json);
int32_t svc_delete_stub(SvcHandle *handle, uint16_t port, const char *ref_json);
int32_t svc_clear_recorded(SvcHandle *handle, uint16_t port);
int32_t svc_clear_proxy_recordings(SvcHandle *handle, uint16_t port);
int32_t svc_set_imposter_enabled(SvcHandle *handle, uint16_t port, int32_t enabled);

char *svc_scenarios(SvcHandle *handle, uint16_t port, const char *flow_id);
int32_t svc_set_scenario_state(SvcHandle *handle, uint16_t port, const char *name, const char *state_json);
int32_t svc_reset_scenarios(SvcHandle *handle, uint16_t port, const char *flow_id);

char *svc_serve_admin(SvcHandle *handle, const char *options_json);

char *svc_start_intercept(SvcHandle *handle, const char *options_json);
int32_t svc_stop_intercept(SvcHandle *handle);
int32_t svc_intercept_add_rules(SvcHandle *handle, const char *rules_json);
char *svc_intercept_list_rules(SvcHandle *handle);
int32_t svc_intercept_clear_rules(SvcHandle *handle);
char *svc_intercept_ca_pem(SvcHandle *handle);
int32_t svc_intercept_export_truststore(SvcHandle *handle, const char *format, const char *password, const char *out_path);

const char *svc_build_info(void);
uint32_t svc_abi_version(void);
char *svc_last_error(void);
void svc_free(char *ptr);

#ifdef __cplusplus
}
#endif

#endif
