// Arithmetic on every scalar type. Each work-item writes the results of its pair (a[i], b[i]).

#define INT_OPS(T) \
kernel void int_##T(global const T *a, global const T *b, global T *out) { \
    size_t i = get_global_id(0); \
    T x = a[i], y = b[i]; \
    global T *o = out + i * 12; \
    o[0] = x + y; o[1] = x - y; o[2] = x * y; o[3] = x / y; o[4] = x % y; \
    o[5] = x & y; o[6] = x | y; o[7] = x ^ y; \
    o[8] = x << (y & 7); o[9] = x >> (y & 7); \
    o[10] = (T)(0 - x); o[11] = ~x; \
} \
kernel void cmp_##T(global const T *a, global const T *b, global int *out) { \
    size_t i = get_global_id(0); \
    T x = a[i], y = b[i]; \
    global int *o = out + i * 8; \
    o[0] = x < y; o[1] = x <= y; o[2] = x > y; o[3] = x >= y; o[4] = x == y; o[5] = x != y; \
    o[6] = x && y; o[7] = !x || y; \
}

INT_OPS(char)
INT_OPS(uchar)
INT_OPS(short)
INT_OPS(ushort)
INT_OPS(int)
INT_OPS(uint)
INT_OPS(long)
INT_OPS(ulong)

kernel void negate(global char *c, global short *s, global int *i, global long *l, global float *f) {
    size_t g = get_global_id(0);
    c[g] = -c[g]; s[g] = -s[g]; i[g] = -i[g]; l[g] = -l[g]; f[g] = -f[g];
}

kernel void float_ops(global const float *a, global const float *b, global float *out) {
    size_t i = get_global_id(0);
    float x = a[i], y = b[i];
    global float *o = out + i * 6;
    o[0] = x + y; o[1] = x - y; o[2] = x * y; o[3] = x / y; o[4] = -x;
    o[5] = x * 2.5f - y;
}

kernel void cmp_float(global const float *a, global const float *b, global int *out) {
    size_t i = get_global_id(0);
    float x = a[i], y = b[i];
    global int *o = out + i * 8;
    o[0] = x < y; o[1] = x <= y; o[2] = x > y; o[3] = x >= y; o[4] = x == y; o[5] = x != y;
    o[6] = x && y; o[7] = !x || y;
}

// Shift counts are masked to the promoted left operand's width.
kernel void shift_mask(global const int *a, global int *o, global uint *u, global long *l) {
    int x = a[0];
    int n = a[1];
    o[0] = x << n;
    o[1] = x >> n;
    u[0] = (uint)x >> n;
    l[0] = (long)x << (n + 32);
    o[2] = (char)x << 12;
}

// Usual arithmetic conversions and integer promotions.
kernel void promotions(global int *o, global uint *u, global long *l, global float *f) {
    char c = -3; uchar uc = 250; short s = -300; ushort us = 65000;
    int i = -7; uint ui = 5;
    o[0] = c + uc;             // int: 247
    o[1] = uc * uc;            // int: 62500, no wrap to uchar
    o[2] = s * 200;            // int: -60000
    o[3] = us + us;            // int: 130000
    u[0] = i + ui;             // uint: 4294967294
    o[4] = i < ui;             // -7 converts to uint: 0
    l[0] = i * 3000000000L;    // long
    f[0] = i / 2 + 0.5f;       // int division first: -3 + 0.5
    o[5] = (uchar)(uc + 10);   // 4
    o[6] = (char)200;          // -56
    o[7] = sizeof(c + c);      // 4
    o[8] = 7 / -2;             // -3 (toward zero)
    o[9] = 7 % -2;             // 1
    o[10] = -7 % 2;            // -1
    u[1] = 0xffffffff + 1u;    // 0
    o[11] = 'A' + 1;           // 66
}
