/* The exported C ABI: each function encodes its arguments as one request frame for the engine host. */
#define _GNU_SOURCE
#include "svc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build_info.h"
#include "host.h"

static __thread char *last_error;
static pthread_key_t error_owner;
static pthread_once_t error_owner_once = PTHREAD_ONCE_INIT;

static void make_error_owner(void) { pthread_key_create(&error_owner, free); }

static void keep_error(char *message) {
    free(last_error);
    last_error = message;
    /* Also held by a thread key, whose destructor frees the message of a thread that exits. */
    pthread_once(&error_owner_once, make_error_owner);
    pthread_setspecific(error_owner, message);
}

void ffi_set_error(const char *fmt, ...) {
    char *message = NULL;
    va_list args;
    va_start(args, fmt);
    if (vasprintf(&message, fmt, args) < 0) message = NULL;
    va_end(args);
    keep_error(message);
}

static void clear_error(void) {
    if (last_error) keep_error(NULL);
}

/*
 * One call: `fmt` names the arguments after `op` — 'p' port (uint16), 'i' int32, 's' string (NULL
 * travels as nil). On success the caller owns `reply` and frees it with host_reply_free.
 */
static int call(SvcHandle *h, host_reply *reply, const char *op, const char *fmt, ...) {
    clear_error();
    if (!h) {
        ffi_set_error("null handle");
        return -1;
    }
    mp_buf request = {0};
    mp_put_array(&request, 2);
    mp_put_str(&request, op, strlen(op));
    mp_put_array(&request, (uint32_t)strlen(fmt));
    va_list args;
    va_start(args, fmt);
    for (const char *f = fmt; *f; f++) {
        if (*f == 's') {
            const char *s = va_arg(args, const char *);
            if (s) mp_put_str(&request, s, strlen(s));
            else mp_put_nil(&request);
        } else {
            mp_put_int(&request, va_arg(args, int)); /* uint16_t and int32_t both promote to int */
        }
    }
    va_end(args);
    pthread_mutex_lock(&h->lock);
    int rc = host_exchange(h, &request, reply);
    pthread_mutex_unlock(&h->lock);
    mp_buf_free(&request);
    return rc;
}

/* A string result as a caller-owned copy; NULL (with last error) when the call failed. */
static char *string_result(int rc, host_reply *reply) {
    if (rc != 0) return NULL;
    char *out = NULL;
    if (reply->value.type == MP_STR && (out = malloc(reply->value.len + 1u))) {
        memcpy(out, reply->value.ptr, reply->value.len);
        out[reply->value.len] = '\0';
    } else {
        ffi_set_error(reply->value.type == MP_STR ? "out of memory" : "engine host returned no string");
    }
    host_reply_free(reply);
    return out;
}

static int32_t status_result(int rc, host_reply *reply) {
    if (rc != 0) return -1;
    host_reply_free(reply);
    return 0;
}

#define STRING_CALL(...) do { host_reply reply; return string_result(call(__VA_ARGS__), &reply); } while (0)
#define STATUS_CALL(...) do { host_reply reply; return status_result(call(__VA_ARGS__), &reply); } while (0)

SvcHandle *svc_start(void) {
    clear_error();
    SvcHandle *h = calloc(1, sizeof *h);
    if (!h) {
        ffi_set_error("out of memory");
        return NULL;
    }
    pthread_mutex_init(&h->lock, NULL);
    h->request_fd = h->reply_fd = -1;
    host_reply reply;
    if (host_spawn(h) != 0 || call(h, &reply, "hello", "") != 0) {
        char *why = last_error ? strdup(last_error) : NULL;
        host_shutdown(h);
        ffi_set_error("svc_start: %s", why ? why : "engine host did not answer");
        free(why);
        free(h->gone);
        pthread_mutex_destroy(&h->lock);
        free(h);
        return NULL;
    }
    host_reply_free(&reply);
    return h;
}

void svc_stop(SvcHandle *h) {
    clear_error();
    if (!h) return;
    pthread_mutex_lock(&h->lock);
    host_shutdown(h);
    pthread_mutex_unlock(&h->lock);
    pthread_mutex_destroy(&h->lock);
    free(h->gone);
    free(h);
}

uint16_t svc_create_imposter(SvcHandle *h, const char *json) {
    host_reply reply;
    if (call(h, &reply, "create_imposter", "s", json) != 0) return 0;
    uint16_t port = reply.value.type == MP_INT && reply.value.i > 0 && reply.value.i <= 65535 ? (uint16_t)reply.value.i : 0;
    host_reply_free(&reply);
    if (!port) ffi_set_error("engine host returned no port");
    return port;
}

int32_t svc_replace_stubs(SvcHandle *h, uint16_t port, const char *json) { STATUS_CALL(h, &reply, "replace_stubs", "ps", port, json); }
int32_t svc_delete_imposter(SvcHandle *h, uint16_t port) { STATUS_CALL(h, &reply, "delete_imposter", "p", port); }
int32_t svc_delete_all(SvcHandle *h) { STATUS_CALL(h, &reply, "delete_all", ""); }
char *svc_recorded(SvcHandle *h, uint16_t port) { STRING_CALL(h, &reply, "recorded", "p", port); }
char *svc_verify(SvcHandle *h, uint16_t port, const char *body) { STRING_CALL(h, &reply, "verify", "ps", port, body); }
char *svc_stub_warnings(SvcHandle *h, uint16_t port) { STRING_CALL(h, &reply, "stub_warnings", "p", port); }
char *svc_apply_config(SvcHandle *h, const char *json) { STRING_CALL(h, &reply, "apply_config", "s", json); }

char *svc_flow_state_get(SvcHandle *h, uint16_t port, const char *flow_id, const char *key) {
    STRING_CALL(h, &reply, "flow_state_get", "pss", port, flow_id, key);
}
int32_t svc_flow_state_put(SvcHandle *h, uint16_t port, const char *flow_id, const char *key, const char *value_json) {
    STATUS_CALL(h, &reply, "flow_state_put", "psss", port, flow_id, key, value_json);
}
int32_t svc_flow_state_delete(SvcHandle *h, uint16_t port, const char *flow_id, const char *key) {
    STATUS_CALL(h, &reply, "flow_state_delete", "pss", port, flow_id, key);
}

int32_t svc_space_add_stub(SvcHandle *h, uint16_t port, const char *flow_id, const char *stub_json) {
    STATUS_CALL(h, &reply, "space_add_stub", "pss", port, flow_id, stub_json);
}
char *svc_space_list_stubs(SvcHandle *h, uint16_t port, const char *flow_id) { STRING_CALL(h, &reply, "space_list_stubs", "ps", port, flow_id); }
int32_t svc_space_delete(SvcHandle *h, uint16_t port, const char *flow_id) { STATUS_CALL(h, &reply, "space_delete", "ps", port, flow_id); }
char *svc_space_recorded(SvcHandle *h, uint16_t port, const char *flow_id) { STRING_CALL(h, &reply, "space_recorded", "ps", port, flow_id); }

char *svc_list_imposters(SvcHandle *h, const char *options_json) { STRING_CALL(h, &reply, "list_imposters", "s", options_json); }
char *svc_get_imposter(SvcHandle *h, uint16_t port, const char *options_json) {
    STRING_CALL(h, &reply, "get_imposter", "ps", port, options_json);
}
int32_t svc_add_stub(SvcHandle *h, uint16_t port, const char *stub_json, int32_t index) {
    STATUS_CALL(h, &reply, "add_stub", "psi", port, stub_json, index);
}
char *svc_get_stub(SvcHandle *h, uint16_t port, const char *ref_json) { STRING_CALL(h, &reply, "get_stub", "ps", port, ref_json); }
int32_t svc_update_stub(SvcHandle *h, uint16_t port, const char *ref_json, const char *stub_json) {
    STATUS_CALL(h, &reply, "update_stub", "pss", port, ref_json, stub_json);
}
int32_t svc_delete_stub(SvcHandle *h, uint16_t port, const char *ref_json) { STATUS_CALL(h, &reply, "delete_stub", "ps", port, ref_json); }
int32_t svc_clear_recorded(SvcHandle *h, uint16_t port) { STATUS_CALL(h, &reply, "clear_recorded", "p", port); }
int32_t svc_clear_proxy_recordings(SvcHandle *h, uint16_t port) { STATUS_CALL(h, &reply, "clear_proxy_recordings", "p", port); }
int32_t svc_set_imposter_enabled(SvcHandle *h, uint16_t port, int32_t enabled) {
    STATUS_CALL(h, &reply, "set_imposter_enabled", "pi", port, enabled != 0);
}

char *svc_scenarios(SvcHandle *h, uint16_t port, const char *flow_id) { STRING_CALL(h, &reply, "scenarios", "ps", port, flow_id); }
int32_t svc_set_scenario_state(SvcHandle *h, uint16_t port, const char *name, const char *state_json) {
    STATUS_CALL(h, &reply, "set_scenario_state", "pss", port, name, state_json);
}
int32_t svc_reset_scenarios(SvcHandle *h, uint16_t port, const char *flow_id) { STATUS_CALL(h, &reply, "reset_scenarios", "ps", port, flow_id); }

char *svc_serve_admin(SvcHandle *h, const char *options_json) { STRING_CALL(h, &reply, "serve_admin", "s", options_json); }

char *svc_start_intercept(SvcHandle *h, const char *options_json) { STRING_CALL(h, &reply, "start_intercept", "s", options_json); }
int32_t svc_stop_intercept(SvcHandle *h) { STATUS_CALL(h, &reply, "stop_intercept", ""); }
int32_t svc_intercept_add_rules(SvcHandle *h, const char *rules_json) { STATUS_CALL(h, &reply, "intercept_add_rules", "s", rules_json); }
char *svc_intercept_list_rules(SvcHandle *h) { STRING_CALL(h, &reply, "intercept_list_rules", ""); }
int32_t svc_intercept_clear_rules(SvcHandle *h) { STATUS_CALL(h, &reply, "intercept_clear_rules", ""); }
char *svc_intercept_ca_pem(SvcHandle *h) { STRING_CALL(h, &reply, "intercept_ca_pem", ""); }
int32_t svc_intercept_export_truststore(SvcHandle *h, const char *format, const char *password, const char *out_path) {
    STATUS_CALL(h, &reply, "intercept_export_truststore", "sss", format, password, out_path);
}

const char *svc_build_info(void) {
    clear_error();
    return SVC_BUILD_INFO;
}

uint32_t svc_abi_version(void) {
    clear_error();
    return SVC_ABI_VERSION;
}

/* A copy the caller frees with svc_free; reading it leaves the error in place. */
char *svc_last_error(void) { return last_error ? strdup(last_error) : NULL; }

void svc_free(char *ptr) { free(ptr); }
