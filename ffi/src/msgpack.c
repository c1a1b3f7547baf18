#include "msgpack.h"

#include <stdlib.h>
#include <string.h>

void mp_buf_free(mp_buf *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

static void put(mp_buf *b, const void *src, size_t n) {
    if (b->failed) return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n) cap *= 2;
        uint8_t *grown = realloc(b->data, cap);
        if (!grown) {
            b->failed = 1;
            return;
        }
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, src, n);
    b->len += n;
}

static void put_byte(mp_buf *b, uint8_t v) { put(b, &v, 1); }

static void put_be(mp_buf *b, uint64_t v, int bytes) {
    uint8_t out[8];
    for (int i = 0; i < bytes; i++) out[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
    put(b, out, (size_t)bytes);
}

void mp_put_nil(mp_buf *b) { put_byte(b, 0xc0); }

void mp_put_bool(mp_buf *b, int value) { put_byte(b, value ? 0xc3 : 0xc2); }

void mp_put_int(mp_buf *b, int64_t v) {
    if (v >= 0 && v <= 0x7f) {
        put_byte(b, (uint8_t)v);
    } else if (v < 0 && v >= -32) {
        put_byte(b, (uint8_t)(int8_t)v);
    } else {
        /* int64 always: the host decodes any width, and these values are rare (ports, indexes). */
        put_byte(b, 0xd3);
        put_be(b, (uint64_t)v, 8);
    }
}

static void put_header(mp_buf *b, size_t len, uint8_t fix, uint8_t fix_max, uint8_t op8, uint8_t op16, uint8_t op32) {
    if (fix && len <= fix_max) {
        put_byte(b, (uint8_t)(fix | len));
    } else if (op8 && len <= 0xff) {
        put_byte(b, op8);
        put_be(b, len, 1);
    } else if (len <= 0xffff) {
        put_byte(b, op16);
        put_be(b, len, 2);
    } else {
        put_byte(b, op32);
        put_be(b, len, 4);
    }
}

void mp_put_str(mp_buf *b, const char *s, size_t len) {
    put_header(b, len, 0xa0, 31, 0xd9, 0xda, 0xdb);
    put(b, s, len);
}

void mp_put_bin(mp_buf *b, const void *data, size_t len) {
    put_header(b, len, 0, 0, 0xc4, 0xc5, 0xc6);
    put(b, data, len);
}

void mp_put_array(mp_buf *b, uint32_t count) { put_header(b, count, 0x90, 15, 0, 0xdc, 0xdd); }

void mp_put_map(mp_buf *b, uint32_t count) { put_header(b, count, 0x80, 15, 0, 0xde, 0xdf); }

static int take_be(mp_reader *r, int bytes, uint64_t *out) {
    if (r->end - r->p < bytes) return -1;
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v = (v << 8) | r->p[i];
    r->p += bytes;
    *out = v;
    return 0;
}

static int take_bytes(mp_reader *r, mp_item *out, mp_type type, uint64_t len) {
    if ((uint64_t)(r->end - r->p) < len) return -1;
    out->type = type;
    out->ptr = (const char *)r->p;
    out->len = (uint32_t)len;
    r->p += len;
    return 0;
}

int mp_next(mp_reader *r, mp_item *out) {
    if (r->p >= r->end) return -1;
    uint8_t c = *r->p++;
    uint64_t v;
    memset(out, 0, sizeof *out);
    if (c <= 0x7f) { out->type = MP_INT; out->i = c; return 0; }
    if (c >= 0xe0) { out->type = MP_INT; out->i = (int8_t)c; return 0; }
    if ((c & 0xe0) == 0xa0) return take_bytes(r, out, MP_STR, c & 0x1f);
    if ((c & 0xf0) == 0x90) { out->type = MP_ARRAY; out->len = c & 0x0f; return 0; }
    if ((c & 0xf0) == 0x80) { out->type = MP_MAP; out->len = c & 0x0f; return 0; }
    switch (c) {
    case 0xc0: out->type = MP_NIL; return 0;
    case 0xc2: case 0xc3: out->type = MP_BOOL; out->i = c == 0xc3; return 0;
    case 0xcc: case 0xcd: case 0xce: case 0xcf:
        if (take_be(r, 1 << (c - 0xcc), &v)) return -1;
        out->type = MP_INT; out->i = (int64_t)v; return 0;
    case 0xd0: if (take_be(r, 1, &v)) return -1; out->type = MP_INT; out->i = (int8_t)v; return 0;
    case 0xd1: if (take_be(r, 2, &v)) return -1; out->type = MP_INT; out->i = (int16_t)v; return 0;
    case 0xd2: if (take_be(r, 4, &v)) return -1; out->type = MP_INT; out->i = (int32_t)v; return 0;
    case 0xd3: if (take_be(r, 8, &v)) return -1; out->type = MP_INT; out->i = (int64_t)v; return 0;
    case 0xd9: case 0xda: case 0xdb:
        if (take_be(r, 1 << (c - 0xd9), &v)) return -1;
        return take_bytes(r, out, MP_STR, v);
    case 0xc4: case 0xc5: case 0xc6:
        if (take_be(r, 1 << (c - 0xc4), &v)) return -1;
        return take_bytes(r, out, MP_BIN, v);
    case 0xdc: case 0xdd:
        if (take_be(r, c == 0xdc ? 2 : 4, &v)) return -1;
        out->type = MP_ARRAY; out->len = (uint32_t)v; return 0;
    case 0xde: case 0xdf:
        if (take_be(r, c == 0xde ? 2 : 4, &v)) return -1;
        out->type = MP_MAP; out->len = (uint32_t)v; return 0;
    case 0xca: out->type = MP_OTHER; return take_be(r, 4, &v);
    case 0xcb: out->type = MP_OTHER; return take_be(r, 8, &v);
    default: return -1; /* ext types never appear in host frames */
    }
}

int mp_skip(mp_reader *r) {
    mp_item item;
    if (mp_next(r, &item)) return -1;
    uint64_t children = item.type == MP_ARRAY ? item.len : item.type == MP_MAP ? 2ull * item.len : 0;
    for (uint64_t i = 0; i < children; i++) {
        if (mp_skip(r)) return -1;
    }
    return 0;
}
