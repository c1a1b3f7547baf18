/*
 * Drives every svc C ABI function and prints one line per call: `<label>\t<result>`, where a failed
 * call prints `SENTINEL\t<last error>`. The uvu test (abi.test.ts) reads the lines and, at each
 * `PAUSE` line, checks the engine from outside (imposter ports, the admin plane) and answers with a
 * line on stdin before the program goes on.
 *
 * Modes: `all <port> <port2> <truststore path>`, `threads`, `death`, `hang`, `serve <options_json>`,
 * `errors <port>`.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "svc.h"

static void error_line(const char *label) {
    char *error = svc_last_error();
    printf("%s\tSENTINEL\t%s\n", label, error ? error : "(no last error)");
    svc_free(error);
}

static void text(const char *label, char *value) {
    if (value) printf("%s\t%s\n", label, value);
    else error_line(label);
    svc_free(value);
    fflush(stdout);
}

static void status(const char *label, int32_t rc) {
    if (rc == 0) printf("%s\t0\n", label);
    else error_line(label);
    fflush(stdout);
}

static void pause_for(const char *what) {
    printf("PAUSE\t%s\n", what);
    fflush(stdout);
    char line[64];
    if (!fgets(line, sizeof line, stdin)) exit(3);
}

static SvcHandle *start(void) {
    SvcHandle *h = svc_start();
    if (!h) {
        error_line("start");
        exit(2);
    }
    return h;
}

static int all(uint16_t port, uint16_t port2, const char *truststore) {
    char json[2048];
    printf("abi_version\t%u\n", svc_abi_version());
    printf("build_info\t%s\n", svc_build_info());
    svc_free(NULL);
    char *none = svc_last_error();
    printf("last_error_initially\t%s\n", none ? none : "NULL");

    SvcHandle *h = start();
    snprintf(json, sizeof json,
             "{\"port\":%u,\"protocol\":\"http\",\"recordRequests\":true,\"stubs\":[{\"id\":\"hello\","
             "\"predicates\":[{\"equals\":{\"path\":\"/hello\"}}],\"responses\":[{\"is\":{\"body\":\"world\"}}]}]}",
             port);
    printf("create_imposter\t%u\n", svc_create_imposter(h, json));
    uint16_t bad = svc_create_imposter(h, "{not json");
    if (bad == 0) error_line("create_imposter_bad_json");
    char *listed = svc_list_imposters(h, NULL);
    none = svc_last_error();
    printf("last_error_after_success\t%s\n", listed && !none ? "NULL" : "set");
    svc_free(listed);
    svc_free(none);
    uint16_t duplicate = svc_create_imposter(h, json);
    if (duplicate == 0) error_line("create_imposter_duplicate");
    uint16_t automatic = svc_create_imposter(h, "{\"protocol\":\"http\",\"stubs\":[{\"responses\":[{\"inject\":\"function () { return { body: 'injected' }; }\"}]}]}");
    printf("create_imposter_auto\t%u\n", automatic);
    fflush(stdout);
    pause_for("created");

    text("recorded", svc_recorded(h, port));
    text("verify", svc_verify(h, port, "{\"predicates\":[{\"equals\":{\"path\":\"/hello\"}}]}"));
    text("verify_bad_json", svc_verify(h, port, "[1,"));
    text("verify_inject", svc_verify(h, port, "{\"predicates\":[{\"inject\":\"function (request) { return request.path === '/hello'; }\"}]}"));
    text("stub_warnings", svc_stub_warnings(h, port));
    status("add_stub", svc_add_stub(h, port, "{\"responses\":[{\"is\":{\"statusCode\":404,\"body\":\"fallback\"}}]}", -1));
    status("add_stub_at_0", svc_add_stub(h, port, "{\"id\":\"first\",\"predicates\":[{\"equals\":{\"path\":\"/first\"}}],\"responses\":[{\"is\":{\"body\":\"1\"}}]}", 0));
    status("add_stub_bad_index", svc_add_stub(h, port, "{\"responses\":[]}", 99));
    text("stub_warnings_after_add", svc_stub_warnings(h, port));
    text("get_stub_index", svc_get_stub(h, port, "{\"index\":2}"));
    text("get_stub_id", svc_get_stub(h, port, "{\"id\":\"hello\"}"));
    text("get_stub_out_of_range", svc_get_stub(h, port, "{\"index\":99}"));
    text("get_stub_unknown_id", svc_get_stub(h, port, "{\"id\":\"nope\"}"));
    text("get_stub_malformed_ref", svc_get_stub(h, port, "{\"name\":\"x\"}"));
    status("update_stub", svc_update_stub(h, port, "{\"id\":\"hello\"}",
                                          "{\"predicates\":[{\"equals\":{\"path\":\"/hello\"}}],\"responses\":[{\"is\":{\"body\":\"updated\"}}]}"));
    text("get_stub_after_update", svc_get_stub(h, port, "{\"id\":\"hello\"}"));
    text("list_imposters", svc_list_imposters(h, NULL));
    text("list_imposters_replayable", svc_list_imposters(h, "{\"replayable\":true}"));
    text("get_imposter", svc_get_imposter(h, port, NULL));
    text("get_imposter_replayable", svc_get_imposter(h, port, "{\"replayable\":true}"));
    text("get_imposter_unknown", svc_get_imposter(h, 1, NULL));
    status("delete_stub", svc_delete_stub(h, port, "{\"id\":\"first\"}"));
    status("delete_stub_unknown", svc_delete_stub(h, port, "{\"index\":42}"));
    fflush(stdout);
    pause_for("stubs-edited");

    status("set_imposter_enabled_0", svc_set_imposter_enabled(h, port, 0));
    fflush(stdout);
    pause_for("disabled");
    status("set_imposter_enabled_1", svc_set_imposter_enabled(h, port, 1));
    status("clear_recorded", svc_clear_recorded(h, port));
    text("recorded_after_clear", svc_recorded(h, port));
    status("clear_proxy_recordings", svc_clear_proxy_recordings(h, port));
    status("replace_stubs", svc_replace_stubs(h, port, "{\"stubs\":[{\"responses\":[{\"is\":{\"body\":\"replaced\"}}]}]}"));
    status("replace_stubs_unknown_port", svc_replace_stubs(h, 1, "{\"stubs\":[]}"));
    fflush(stdout);
    pause_for("replaced");

    snprintf(json, sizeof json,
             "{\"imposters\":[{\"port\":%u,\"protocol\":\"http\",\"_svc\":{\"flowState\":{}},\"stubs\":[{\"responses\":[{\"is\":{\"body\":\"replaced\"}}]}]},"
             "{\"port\":%u,\"protocol\":\"http\",\"stubs\":[{\"responses\":[{\"is\":{\"body\":\"applied\"}}]}]}]}",
             port, port2);
    text("apply_config", svc_apply_config(h, json));
    text("apply_config_bad", svc_apply_config(h, "{\"imposters\":[{\"protocol\":\"gopher\"}]}"));
    text("serve_admin", svc_serve_admin(h, "{\"port\":0}"));
    text("serve_admin_again", svc_serve_admin(h, NULL));
    pause_for("admin");
    text("list_after_http_create", svc_list_imposters(h, NULL));

    status("flow_state_put", svc_flow_state_put(h, port, "f1", "k", "{\"n\":1}"));
    status("flow_state_put_bad_json", svc_flow_state_put(h, port, "f1", "k", "{n"));
    text("flow_state_get", svc_flow_state_get(h, port, "f1", "k"));
    text("flow_state_get_other_flow", svc_flow_state_get(h, port, "f2", "k"));
    char *kept = svc_last_error();
    printf("flow_state_absent_last_error\t%s\n", kept ? kept : "NULL");
    svc_free(kept);
    text("flow_state_get_unknown_port", svc_flow_state_get(h, 1, "f1", "k"));
    status("flow_state_delete", svc_flow_state_delete(h, port, "f1", "k"));
    status("flow_state_delete_again", svc_flow_state_delete(h, port, "f1", "k"));
    text("flow_state_get_deleted", svc_flow_state_get(h, port, "f1", "k"));

    status("add_scenario_stub", svc_add_stub(h, port,
        "{\"scenarioName\":\"login\",\"requiredScenarioState\":\"Started\",\"newScenarioState\":\"LoggedIn\","
        "\"predicates\":[{\"equals\":{\"path\":\"/login\"}}],\"responses\":[{\"is\":{\"body\":\"welcome\"}}]}", 0));
    text("scenarios", svc_scenarios(h, port, NULL));
    status("set_scenario_state", svc_set_scenario_state(h, port, "login", "{\"state\":\"LoggedIn\"}"));
    text("scenarios_after_set", svc_scenarios(h, port, NULL));
    status("set_scenario_state_missing_state", svc_set_scenario_state(h, port, "login", "{}"));
    status("reset_scenarios", svc_reset_scenarios(h, port, NULL));
    text("scenarios_after_reset", svc_scenarios(h, port, NULL));

    status("space_add_stub", svc_space_add_stub(h, port, "tenant-a", "{\"responses\":[{\"is\":{\"body\":\"tenant\"}}]}"));
    status("space_add_stub_envelope", svc_space_add_stub(h, port, "tenant-a", "{\"stub\":{}}"));
    text("space_list_stubs", svc_space_list_stubs(h, port, "tenant-a"));
    text("space_recorded", svc_space_recorded(h, port, "tenant-a"));
    status("space_delete", svc_space_delete(h, port, "tenant-a"));
    text("space_list_after_delete", svc_space_list_stubs(h, port, "tenant-a"));

    status("stop_intercept_idle", svc_stop_intercept(h));
    text("intercept_list_rules_idle", svc_intercept_list_rules(h));
    text("start_intercept", svc_start_intercept(h, NULL));
    text("start_intercept_again", svc_start_intercept(h, "{}"));
    snprintf(json, sizeof json, "{\"match\":{\"host\":\"api.example.com\"},\"forward\":{\"port\":%u}}", port);
    status("intercept_add_rules", svc_intercept_add_rules(h, json));
    status("intercept_add_rules_bad", svc_intercept_add_rules(h, "[{\"match\":{}}]"));
    text("intercept_list_rules", svc_intercept_list_rules(h));
    char *pem = svc_intercept_ca_pem(h);
    printf("intercept_ca_pem\t%s\n", pem && strncmp(pem, "-----BEGIN CERTIFICATE-----", 27) == 0 ? "PEM" : "not a PEM");
    svc_free(pem);
    status("intercept_export_truststore", svc_intercept_export_truststore(h, "pkcs12", NULL, truststore));
    status("intercept_export_truststore_bad_format", svc_intercept_export_truststore(h, "pem", NULL, truststore));
    fflush(stdout);
    pause_for("intercepting");
    status("intercept_clear_rules", svc_intercept_clear_rules(h));
    text("intercept_list_after_clear", svc_intercept_list_rules(h));
    status("stop_intercept", svc_stop_intercept(h));
    text("intercept_ca_pem_stopped", svc_intercept_ca_pem(h));

    status("delete_imposter", svc_delete_imposter(h, port));
    status("delete_imposter_again", svc_delete_imposter(h, port));
    status("delete_all", svc_delete_all(h));
    text("list_after_delete_all", svc_list_imposters(h, NULL));
    pause_for("deleted");

    printf("null_handle_create\t%u\n", svc_create_imposter(NULL, "{}"));
    error_line("null_handle_error");
    status("null_handle_delete_all", svc_delete_all(NULL));
    svc_stop(NULL);
    svc_stop(h);
    printf("stopped\t0\n");
    return 0;
}

/* Each thread makes its own failing and succeeding calls: last errors must never leak across threads. */
struct worker {
    SvcHandle *h;
    uint16_t port;
    int fail;
    int ok;
    int errors_right;
};

static void *work(void *arg) {
    struct worker *w = arg;
    for (int i = 0; i < 200; i++) {
        char *detail = svc_get_imposter(w->h, w->fail ? 1 : w->port, NULL);
        char *error = svc_last_error();
        if (detail && strstr(detail, "\"port\"")) w->ok++;
        if (w->fail ? (error && strstr(error, "no imposter on port 1")) : (detail && !error)) w->errors_right++;
        svc_free(detail);
        svc_free(error);
    }
    return NULL;
}

static int threads(void) {
    SvcHandle *h = start();
    uint16_t port = svc_create_imposter(h, "{\"protocol\":\"http\"}");
    struct worker good = {h, port, 0, 0, 0}, failing = {h, port, 1, 0, 0};
    pthread_t a, b;
    pthread_create(&a, NULL, work, &good);
    pthread_create(&b, NULL, work, &failing);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("thread_good\tok=%d errors_right=%d\n", good.ok, good.errors_right);
    printf("thread_failing\tok=%d errors_right=%d\n", failing.ok, failing.errors_right);
    svc_stop(h);
    printf("stopped\t0\n");
    return 0;
}

static int death(void) {
    SvcHandle *h = start();
    uint16_t port = svc_create_imposter(h, "{\"protocol\":\"http\"}");
    printf("create_imposter\t%u\n", port);
    pause_for("kill-host");
    text("get_imposter_after_death", svc_get_imposter(h, port, NULL));
    printf("create_after_death\t%u\n", svc_create_imposter(h, "{\"protocol\":\"http\"}"));
    error_line("create_after_death_error");
    status("delete_all_after_death", svc_delete_all(h));
    svc_stop(h);
    printf("survived\t0\n");
    return 0;
}

/* svc_stop must come back even when the host no longer answers (the test SIGSTOPs it). */
static int hang(void) {
    SvcHandle *h = start();
    printf("create_imposter\t%u\n", svc_create_imposter(h, "{\"protocol\":\"http\"}"));
    pause_for("freeze-host");
    struct timespec before, after;
    clock_gettime(CLOCK_MONOTONIC, &before);
    svc_stop(h);
    clock_gettime(CLOCK_MONOTONIC, &after);
    printf("stop_seconds\t%.1f\n", (double)(after.tv_sec - before.tv_sec) + (double)(after.tv_nsec - before.tv_nsec) / 1e9);
    return 0;
}

static int serve(const char *options) {
    SvcHandle *h = start();
    text("serve_admin", svc_serve_admin(h, options));
    text("list_imposters", svc_list_imposters(h, NULL));
    pause_for("serving");
    svc_stop(h);
    printf("stopped\t0\n");
    return 0;
}

/* The bad bodies test/ffi/error-parity.test.ts also sends to the admin plane this handle serves. */
static int bad_bodies(uint16_t port) {
    SvcHandle *h = start();
    text("serve_admin", svc_serve_admin(h, NULL));
    char json[128];
    snprintf(json, sizeof json, "{\"port\":%u,\"protocol\":\"http\"}", port);
    printf("create_imposter\t%u\n", svc_create_imposter(h, json));
    text("apply_config_without_imposters", svc_apply_config(h, "{\"stubs\":[]}"));
    status("replace_stubs_not_an_array", svc_replace_stubs(h, port, "{\"stubs\":{\"responses\":[]}}"));
    status("add_stub_without_stub", svc_add_stub(h, port, NULL, -1));
    pause_for("compare");
    svc_stop(h);
    printf("stopped\t0\n");
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 5 && strcmp(argv[1], "all") == 0) return all((uint16_t)atoi(argv[2]), (uint16_t)atoi(argv[3]), argv[4]);
    if (argc >= 2 && strcmp(argv[1], "threads") == 0) return threads();
    if (argc >= 2 && strcmp(argv[1], "death") == 0) return death();
    if (argc >= 2 && strcmp(argv[1], "hang") == 0) return hang();
    if (argc >= 3 && strcmp(argv[1], "serve") == 0) return serve(argv[2]);
    if (argc >= 3 && strcmp(argv[1], "errors") == 0) return bad_bodies((uint16_t)atoi(argv[2]));
    fprintf(stderr, "usage: abi all <port> <port2> <truststore> | threads | death | hang | serve <options_json> | errors <port>\n");
    return 64;
}
