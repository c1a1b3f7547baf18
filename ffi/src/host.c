#define _GNU_SOURCE
#include "host.h"

#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "svc.h"

extern char **environ;

/* In a checkout the library sits in ffi/build/ and runs the compiled host (dist/), so a rebuilt engine
 * needs no re-bundle; anywhere else it runs the self-contained bundle next to it (ffi/build.mjs). */
#define HOST_FROM_LIBRARY "/../../dist/ffi/host/main.js"
#define BUNDLE_BESIDE_LIBRARY "/svc-engine.mjs"
#define MAX_FRAME (256u * 1024u * 1024u)
#define STOP_GRACE_MS 5000

static char *path_in(const char *dir, const char *relative) {
    char *path = malloc(strlen(dir) + strlen(relative) + 1);
    if (path) sprintf(path, "%s%s", dir, relative);
    return path;
}

static char *host_script_path(void) {
    const char *override = getenv("SVC_FFI_HOST");
    if (override && *override) return strdup(override);
    Dl_info info;
    if (!dladdr((void *)&svc_start, &info) || !info.dli_fname) return NULL;
    char resolved[PATH_MAX];
    if (!realpath(info.dli_fname, resolved)) return NULL;
    char *dir = dirname(resolved);
    char *checkout = path_in(dir, HOST_FROM_LIBRARY);
    if (!checkout || access(checkout, R_OK) == 0) return checkout;
    free(checkout);
    return path_in(dir, BUNDLE_BESIDE_LIBRARY);
}

int host_spawn(struct SvcHandle *h) {
    char *script = host_script_path();
    if (!script) {
        ffi_set_error("cannot locate the engine host script (set SVC_FFI_HOST)");
        return -1;
    }
    if (access(script, R_OK) != 0) {
        ffi_set_error("engine host script %s: %s (run `npm run build`, or set SVC_FFI_HOST)", script, strerror(errno));
        free(script);
        return -1;
    }
    /* Socket pairs rather than pipes: send() with MSG_NOSIGNAL turns a dead host into EPIPE. */
    int in[2], out[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0) {
        ffi_set_error("socketpair: %s", strerror(errno));
        free(script);
        return -1;
    }
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, out) != 0) {
        ffi_set_error("socketpair: %s", strerror(errno));
        close(in[0]);
        close(in[1]);
        free(script);
        return -1;
    }
    const char *node = getenv("SVC_FFI_NODE");
    if (!node || !*node) node = getenv("SVC_NODE");
    if (!node || !*node) node = "node";
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[1], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    char *argv[] = {(char *)node, script, NULL};
    int rc = posix_spawnp(&h->pid, node, &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(in[1]);
    close(out[1]);
    if (rc != 0) {
        ffi_set_error("cannot start the engine host (%s %s): %s", node, script, strerror(rc));
        close(in[0]);
        close(out[0]);
        free(script);
        return -1;
    }
    free(script);
    h->request_fd = in[0];
    h->reply_fd = out[0];
    return 0;
}

/* Marks the host unusable, reaping it when it has exited, so later calls fail fast with the reason. */
static void mark_gone(struct SvcHandle *h, const char *what) {
    char reason[160];
    int status;
    pid_t reaped = h->pid > 0 ? waitpid(h->pid, &status, WNOHANG) : 0;
    if (reaped == h->pid && WIFEXITED(status)) {
        snprintf(reason, sizeof reason, "engine host exited with status %d (%s)", WEXITSTATUS(status), what);
    } else if (reaped == h->pid && WIFSIGNALED(status)) {
        snprintf(reason, sizeof reason, "engine host killed by signal %d (%s)", WTERMSIG(status), what);
    } else {
        snprintf(reason, sizeof reason, "engine host connection lost (%s)", what);
    }
    if (reaped == h->pid) h->pid = 0;
    free(h->gone);
    h->gone = strdup(reason);
}

static int send_all(struct SvcHandle *h, const uint8_t *p, size_t n) {
    while (n > 0) {
        /* MSG_NOSIGNAL: a dead host is an EPIPE here, never a SIGPIPE in the caller's process. */
        ssize_t sent = send(h->request_fd, p, n, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR) continue;
        if (sent <= 0) {
            mark_gone(h, sent < 0 ? strerror(errno) : "short write");
            return -1;
        }
        p += sent;
        n -= (size_t)sent;
    }
    return 0;
}

static int recv_all(struct SvcHandle *h, uint8_t *p, size_t n) {
    while (n > 0) {
        ssize_t got = recv(h->reply_fd, p, n, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            mark_gone(h, got < 0 ? strerror(errno) : "end of stream");
            return -1;
        }
        p += got;
        n -= (size_t)got;
    }
    return 0;
}

static int fail_gone(struct SvcHandle *h) {
    ffi_set_error("%s", h->gone);
    return -1;
}

int host_exchange(struct SvcHandle *h, const mp_buf *request, host_reply *reply) {
    reply->frame = NULL;
    if (h->gone) return fail_gone(h);
    if (request->failed) {
        ffi_set_error("out of memory encoding the request");
        return -1;
    }
    uint8_t length[4] = {
        (uint8_t)(request->len >> 24), (uint8_t)(request->len >> 16), (uint8_t)(request->len >> 8), (uint8_t)request->len,
    };
    if (send_all(h, length, 4) || send_all(h, request->data, request->len)) return fail_gone(h);
    if (recv_all(h, length, 4)) return fail_gone(h);
    uint32_t size = (uint32_t)length[0] << 24 | (uint32_t)length[1] << 16 | (uint32_t)length[2] << 8 | length[3];
    if (size > MAX_FRAME || !(reply->frame = malloc(size ? size : 1))) {
        mark_gone(h, "reply frame too large");
        return fail_gone(h);
    }
    if (recv_all(h, reply->frame, size)) {
        host_reply_free(reply);
        return fail_gone(h);
    }
    /* A reply is [ok, value]: value is the result, or the error message when ok is false. */
    mp_reader r = {reply->frame, reply->frame + size};
    mp_item head, ok;
    if (mp_next(&r, &head) || head.type != MP_ARRAY || head.len != 2 || mp_next(&r, &ok) || ok.type != MP_BOOL ||
        mp_next(&r, &reply->value)) {
        host_reply_free(reply);
        mark_gone(h, "malformed reply frame");
        return fail_gone(h);
    }
    if (!ok.i) {
        if (reply->value.type == MP_STR) ffi_set_error("%.*s", (int)reply->value.len, reply->value.ptr);
        else ffi_set_error("engine host failed the call");
        host_reply_free(reply);
        return -1;
    }
    return 0;
}

void host_reply_free(host_reply *reply) {
    free(reply->frame);
    reply->frame = NULL;
}

/* True once the host is reaped, or is no longer our child (reaped elsewhere: never signal that pid). */
static int reaped(pid_t pid) {
    pid_t r = waitpid(pid, NULL, WNOHANG);
    return r == pid || (r < 0 && errno == ECHILD);
}

static int reaped_within(pid_t pid, int ms) {
    struct timespec tick = {0, 10 * 1000 * 1000};
    for (int waited = 0; waited < ms; waited += 10) {
        if (reaped(pid)) return 1;
        nanosleep(&tick, NULL);
    }
    return 0;
}

void host_shutdown(struct SvcHandle *h) {
    int answered = 0;
    if (!h->gone) {
        /* A host that stopped answering must not hang svc_stop: past the grace period it is killed. */
        struct timeval grace = {STOP_GRACE_MS / 1000, 0};
        setsockopt(h->reply_fd, SOL_SOCKET, SO_RCVTIMEO, &grace, sizeof grace);
        mp_buf request = {0};
        mp_put_array(&request, 2);
        mp_put_str(&request, "stop", 4);
        mp_put_array(&request, 0);
        host_reply reply;
        if (host_exchange(h, &request, &reply) == 0) {
            answered = 1;
            host_reply_free(&reply);
        }
        mp_buf_free(&request);
    }
    if (h->request_fd >= 0) close(h->request_fd);
    if (h->reply_fd >= 0) close(h->reply_fd);
    h->request_fd = h->reply_fd = -1;
    /* A host that answered `stop` is exiting and gets the grace period; any other is killed now. */
    if (h->pid > 0 && !(answered ? reaped_within(h->pid, STOP_GRACE_MS) : reaped(h->pid))) {
        kill(h->pid, SIGKILL);
        waitpid(h->pid, NULL, 0);
    }
    h->pid = 0;
}
