/* Times synchronous C ABI calls: `ffi-roundtrip <calls>` prints calls, seconds and microseconds per call. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "svc.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    int calls = argc > 1 ? atoi(argv[1]) : 10000;
    SvcHandle *h = svc_start();
    if (!h) {
        char *error = svc_last_error();
        fprintf(stderr, "svc_start: %s\n", error ? error : "?");
        return 1;
    }
    uint16_t port = svc_create_imposter(h, "{\"protocol\":\"http\",\"stubs\":[{\"responses\":[{\"is\":{\"body\":\"hi\"}}]}]}");
    for (int i = 0; i < 500; i++) svc_free(svc_get_imposter(h, port, NULL)); /* warm-up: JIT, allocator */
    double started = now();
    int failed = 0;
    for (int i = 0; i < calls; i++) {
        char *detail = svc_get_imposter(h, port, NULL);
        if (!detail) failed++;
        svc_free(detail);
    }
    double seconds = now() - started;
    started = now();
    for (int i = 0; i < calls; i++) {
        if (svc_set_imposter_enabled(h, port, 1) != 0) failed++;
    }
    double status_seconds = now() - started;
    printf("svc_get_imposter: %d calls in %.3f s = %.1f us/call\n", calls, seconds, seconds * 1e6 / calls);
    printf("svc_set_imposter_enabled: %d calls in %.3f s = %.1f us/call\n", calls, status_seconds, status_seconds * 1e6 / calls);
    svc_stop(h);
    return failed ? 1 : 0;
}
