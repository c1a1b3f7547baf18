/*
 * The C msgpack subset (ffi/src/msgpack.c) against @msgpack/msgpack (msgpack.test.ts):
 *   `msgpack-check encode`        prints the hex of a fixed value covering every width the encoder writes
 *   `msgpack-check decode`        reads hex on stdin, prints the decoded value as JSON (bin as {"bin":[...]},
 *                                 floats as "other"), then whether mp_skip crosses it exactly
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msgpack.h"

static void encode(void) {
    mp_buf b = {0};
    static char long_str[70000];
    memset(long_str, 'x', sizeof long_str);
    const unsigned char bytes[] = {1, 2, 3};
    mp_put_array(&b, 14);
    mp_put_nil(&b);
    mp_put_bool(&b, 1);
    mp_put_bool(&b, 0);
    mp_put_int(&b, 5);
    mp_put_int(&b, -3);
    mp_put_int(&b, 300);
    mp_put_int(&b, -70000);
    mp_put_int(&b, 1099511627776LL);
    mp_put_str(&b, "hello", 5);
    mp_put_str(&b, long_str, 40);
    mp_put_str(&b, long_str, 300);
    mp_put_str(&b, long_str, sizeof long_str);
    mp_put_bin(&b, bytes, sizeof bytes);
    mp_put_map(&b, 1);
    mp_put_str(&b, "a", 1);
    mp_put_array(&b, 20);
    for (int i = 0; i < 20; i++) mp_put_int(&b, i);
    for (size_t i = 0; i < b.len; i++) printf("%02x", b.data[i]);
    printf("\n");
    mp_buf_free(&b);
}

static int describe(mp_reader *r) {
    mp_item item;
    if (mp_next(r, &item)) return -1;
    switch (item.type) {
    case MP_NIL: printf("null"); return 0;
    case MP_BOOL: printf(item.i ? "true" : "false"); return 0;
    case MP_INT: printf("%lld", (long long)item.i); return 0;
    case MP_STR: printf("\"%.*s\"", (int)item.len, item.ptr); return 0;
    case MP_OTHER: printf("\"other\""); return 0;
    case MP_BIN:
        printf("{\"bin\":[");
        for (uint32_t i = 0; i < item.len; i++) printf("%s%u", i ? "," : "", (unsigned char)item.ptr[i]);
        printf("]}");
        return 0;
    case MP_ARRAY:
        printf("[");
        for (uint32_t i = 0; i < item.len; i++) {
            if (i) printf(",");
            if (describe(r)) return -1;
        }
        printf("]");
        return 0;
    case MP_MAP:
        printf("{");
        for (uint32_t i = 0; i < item.len; i++) {
            if (i) printf(",");
            if (describe(r)) return -1;
            printf(":");
            if (describe(r)) return -1;
        }
        printf("}");
        return 0;
    }
    return -1;
}

static int decode(void) {
    static char hex[1 << 20];
    size_t got = fread(hex, 1, sizeof hex - 1, stdin);
    hex[got] = '\0';
    size_t n = strcspn(hex, "\n") / 2;
    unsigned char *bytes = malloc(n ? n : 1);
    for (size_t i = 0; i < n; i++) sscanf(hex + 2 * i, "%2hhx", &bytes[i]);
    mp_reader r = {bytes, bytes + n};
    int rc = describe(&r);
    printf(rc == 0 && r.p == r.end ? "\n" : "\nMALFORMED\n");
    mp_reader skip = {bytes, bytes + n};
    printf("skip\t%s\n", mp_skip(&skip) == 0 && skip.p == skip.end ? "ok" : "failed");
    free(bytes);
    return rc == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "encode") == 0) {
        encode();
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "decode") == 0) return decode();
    fprintf(stderr, "usage: msgpack-check encode | decode < hex\n");
    return 64;
}
