// The usual arithmetic conversions: every pair of integer types through + - * / and <. Each
// result is stored as its low and high 32 bits (the high ones by shifts, so a signed result
// shows its sign extension), its size and whether its type is signed.

#define STORE(r, k, v) \
    r[k] = (uint)(v); r[k + 1] = (uint)((v) >> 16 >> 16); r[k + 2] = sizeof(v); r[k + 3] = ((v) - (v) - 1) < 0;

#define MIXED(A, B) \
kernel void mixed_##A##_##B(global const A *a, global const B *b, global uint *o) { \
    size_t g = get_global_id(0); \
    A x = a[g]; \
    B y = b[g]; \
    global uint *r = o + g * 18; \
    STORE(r, 0, x + y) STORE(r, 4, x - y) STORE(r, 8, x * y) STORE(r, 12, x / y) \
    r[16] = x < y; \
    r[17] = sizeof(g ? x : y); \
}
#define MIXED_WITH(A) MIXED(A, char) MIXED(A, uchar) MIXED(A, short) MIXED(A, ushort) \
    MIXED(A, int) MIXED(A, uint) MIXED(A, long) MIXED(A, ulong)
MIXED_WITH(char)
MIXED_WITH(uchar)
MIXED_WITH(short)
MIXED_WITH(ushort)
MIXED_WITH(int)
MIXED_WITH(uint)
MIXED_WITH(long)
MIXED_WITH(ulong)
