/* The small msgpack subset the engine-host frames use: nil, bool, int, str, bin, array, map. */
#ifndef SVC_FFI_MSGPACK_H
#define SVC_FFI_MSGPACK_H

#include <stddef.h>
#include <stdint.h>

/* A growable output buffer; on allocation failure `failed` is set and later writes are dropped. */
typedef struct {
    uint8_t *data;
    size_t len;
    size_t cap;
    int failed;
} mp_buf;

void mp_buf_free(mp_buf *b);
void mp_put_nil(mp_buf *b);
void mp_put_bool(mp_buf *b, int value);
void mp_put_int(mp_buf *b, int64_t value);
void mp_put_str(mp_buf *b, const char *s, size_t len);
void mp_put_bin(mp_buf *b, const void *data, size_t len);
void mp_put_array(mp_buf *b, uint32_t count);
void mp_put_map(mp_buf *b, uint32_t count);

typedef enum { MP_NIL, MP_BOOL, MP_INT, MP_STR, MP_BIN, MP_ARRAY, MP_MAP, MP_OTHER } mp_type;

/* One decoded item; str/bin point into the input, array/map carry their element count. */
typedef struct {
    mp_type type;
    int64_t i;          /* bool and int */
    const char *ptr;    /* str and bin */
    uint32_t len;       /* str/bin byte length, array/map element count */
} mp_item;

typedef struct {
    const uint8_t *p;
    const uint8_t *end;
} mp_reader;

/* Reads the next item header (an array's elements follow it); returns 0, or -1 on malformed input. */
int mp_next(mp_reader *r, mp_item *out);
/* Skips one whole item, nested contents included. */
int mp_skip(mp_reader *r);

#endif
