// C syntax a kernel may use: static/inline functions and prototypes, attributes, escapes,
// array parameters, designated initializers, typedefs of vectors and pointers, #pragma unroll,
// nested vector literals, bool, hex floats, 64-bit literals, sizeof of __local pointees.

static inline float sq(float x) { return x * x; }
inline int twice(int x) { return 2 * x; }
__attribute__((always_inline)) int thrice(int x) { return 3 * x; }
float later(float x);

typedef struct __attribute__((packed)) { char c; int i; } Packed;
typedef struct __attribute__((aligned(16))) { float a; } Aligned;
typedef struct { int a; float b; int c[3]; } Designated;
typedef float4 vec;
typedef global float *gptr;

float trace(float m[4][4]) { return m[0][0] + m[1][1] + m[2][2] + m[3][3]; }

kernel void functions(gptr o) {
    o[0] = sq(3.0f) + twice(2) + thrice(1) + later(1.5f);
    float m[4][4];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            m[i][j] = i * 4 + j;
    o[1] = trace(m);
    vec v = (vec)(1, 2, 3, 4);
    o[2] = v.w;
    o[3] = 0x1.8p1f + 0x10p-4f;
    float8 w = (float8)((float2)(1, 2), (float4)(3, (float2)(4, 5), 6), 7, 8);
    o[4] = w.s0 + w.s3 * 10 + w.s7 * 100;
}

float later(float x) { return x * 2.0f; }

kernel void declarations(global int *o, global long *l, local float4 *scratch) {
    o[0] = sizeof(Packed) * 100 + sizeof(Aligned);
    o[1] = '\n' + '\x41' * 2 + '\0' + '\'' + '\\' + '\101';
    Designated d = { .c = { [2] = 5 }, .a = 1 };
    int arr[5] = { [3] = 7, 8 };
    o[2] = d.a + d.c[2] * 10 + arr[3] * 100 + arr[4] * 1000 + (int)d.b + d.c[0];
    int s = 0;
#pragma unroll 4
    for (int i = 0; i < 8; i++)
        s += i;
    o[3] = s;
    bool a = o[10], b = o[11];
    o[4] = (a && !b) + (a ^ b) * 10 + (a + b) * 100;
    bool c = 5;
    o[5] = c;
    o[6] = sizeof(*scratch) * 100 + vec_step(*scratch);
    l[0] = 9223372036854775807;
    l[1] = -9223372036854775807L - 1;
    l[2] = 0xFFFFFFFFFFFFFFFFUL;
}

kernel void statements(global int *o, uint n) {
    int s = 0;
    for (uint i = n; i-- > 0;)
        s += i;
    o[0] = s;
    for (int i = 0; i < 4; i++) {
        switch (i) {
        default:
            o[1 + i] = 9;
        case 1:
            o[1 + i] += 1;
            break;
        case 2:
            o[1 + i] = 2;
        }
    }
    global int *p = o + 10;
    p -= 3;
    p[-2] = 5;
    o[8] = p - o;
}

// Conditional directives inside a macro's arguments, as a box filter picks its border rule.
#define BORDER_REFLECT 1
#define EXTRAPOLATE(x, n, outside) ((x) < 0 || (x) >= (n) ? (outside) : (x))
kernel void macro_directives(global const int *in, global int *o, int n) {
    int i = get_global_id(0);
    int a = EXTRAPOLATE(i - 2, n,
#ifdef BORDER_REFLECT
        -(i - 2) - 1
#else
        0
#endif
    );
    int b = EXTRAPOLATE(i + 3, n,
#if defined(BORDER_WRAP)
        (i + 3) % n
#elif BORDER_REFLECT > 1
        -1
#else
        n - 1
#endif
    );
    o[2 * i] = in[a];
    o[2 * i + 1] = in[b];
}

// Layout attributes beyond the record's own: a typedef's `aligned` moves its members, a
// member's `packed` closes the gap before it.
typedef int int_a8 __attribute__((aligned(8)));
typedef struct { char c; int_a8 x; } AlignedMember;
typedef struct { char c; int x __attribute__((packed)); short s; } PackedMember;
typedef struct __attribute__((packed)) { int a; long b; } PackedWide;
kernel void layout_attributes(global AlignedMember *a, global PackedMember *p, global PackedWide *w, global int *sizes) {
    int i = get_global_id(0);
    w[i].b = w[i].a + 0x100000000L;
    a[i].c = (char)(i + 1);
    a[i].x = 1000 + i;
    p[i].c = (char)(i + 1);
    p[i].x = 0x01020304 * (i + 1);
    p[i].s = (short)-i;
    if (i == 0) {
        sizes[0] = sizeof(AlignedMember);
        sizes[1] = sizeof(PackedMember);
        sizes[2] = __alignof__(int_a8);
        sizes[3] = __alignof__(PackedMember);
        sizes[4] = sizeof(PackedWide);
    }
}
