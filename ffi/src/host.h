/* The engine host process behind a handle: spawn, one synchronous msgpack call at a time, shutdown. */
#ifndef SVC_FFI_HOST_H
#define SVC_FFI_HOST_H

#include <pthread.h>
#include <sys/types.h>

#include "msgpack.h"

struct SvcHandle {
    pthread_mutex_t lock;   /* one request/response exchange at a time */
    pid_t pid;
    int request_fd;         /* our end of the host's stdin */
    int reply_fd;           /* our end of the host's stdout (a separate channel: the host makes its
                               stdout blocking, which must not affect how it reads stdin) */
    char *gone;             /* why the host is no longer usable, once it is not */
};

/* The reply of one call: `value` points into `frame`, which host_reply_free releases. */
typedef struct {
    uint8_t *frame;
    mp_item value;
} host_reply;

/* Starts the engine host; on failure returns -1 with the thread's last error set. */
int host_spawn(struct SvcHandle *h);
/* Sends `request` (a complete msgpack value) and reads the reply; -1 with the last error set when the
 * host failed the call (its message) or is gone. Callers hold h->lock. */
int host_exchange(struct SvcHandle *h, const mp_buf *request, host_reply *reply);
void host_reply_free(host_reply *reply);
/* Asks the host to stop, then reaps it (killing it if it does not exit in time). */
void host_shutdown(struct SvcHandle *h);

/* Thread-local last error (svc.c). */
void ffi_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
