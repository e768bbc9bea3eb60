// C declarations as real programs write them: enums of every width, anonymous struct and union
// members, vector component syntax, long operator chains. The references are in
// tests/kernels/language.rs.

// hashcat's MD5 and SHA-512 constants: enumerators above INT_MAX are uint, long or ulong; the
// enum type is the first of int, uint, long, ulong that holds every value.
enum md5 { MD5M_A = 0x67452301U, MD5M_B = 0xefcdab89U, MD5M_C };
typedef enum { SHA512M_A = 0x6a09e667f3bcc908UL, SHA512M_B = 0xbb67ae8584caa73bUL, SHA512M_C = 0x3c6ef372fe94f82bUL } sha512;
// -2 and 2^31 need a signed 64-bit type: BIG and AFTER are long.
enum mixed { NEG = -2, BIG = 0x80000000, AFTER };
enum small { S0, S1 = 7, S2 };

kernel void enums(global ulong *o) {
    enum md5 m = MD5M_B;
    sha512 h = SHA512M_B;
    int table[S2];
    o[0] = MD5M_A;
    o[1] = m;
    o[2] = MD5M_C;
    o[3] = SHA512M_A;
    o[4] = h;
    o[5] = SHA512M_C + 1;
    o[6] = NEG;
    o[7] = BIG;
    o[8] = AFTER;
    o[9] = sizeof(table) / sizeof(table[0]);
    o[10] = MD5M_A - 0x70000000 < 0;
    o[11] = sizeof(MD5M_B);
    o[12] = sizeof(enum md5);
    o[13] = sizeof(sha512);
    o[14] = sizeof(NEG);
    o[15] = sizeof(BIG);
    o[16] = sizeof(enum small);
    o[17] = MD5M_B + 0x20000000U > MD5M_B;
    o[18] = NEG < BIG;
    o[19] = MD5M_B >> 28;
    switch (m) {
    case MD5M_A: o[20] = 1; break;
    case MD5M_B: o[20] = 2; break;
    default: o[20] = 3;
    }
    o[21] = sizeof(enum mixed);
}

// A flat chain of 255 operators, as hashcat's inc_bignum_operations.cl writes its sums: no
// nesting, however long.
#define T4(i) a[(i)] * 3 + a[(i) + 1] - a[(i) + 2] + (a[(i) + 3] ^ 5)
#define T16(i) T4(i) + T4((i) + 4) + T4((i) + 8) + T4((i) + 12)
#define T64(i) T16(i) + T16((i) + 16) + T16((i) + 32) + T16((i) + 48)

kernel void long_chain(global const uint *a, global uint *o) {
    o[0] = T64(0) + T64(64) + T64(128) + T64(192);
}

// Vector component names: .rgba (OpenCL C 3.0), .s/.S with hex digits of either case, and
// .hi/.lo/.even/.odd on every size, where a 3-vector acts as a 4-vector whose fourth component
// is undefined (never checked here).
#define PUT(k, x) vstore##k((x), 0, o + n); n += k

kernel void components(global const int *a, global int *o, global int3 *p3) {
    int16 v = vload16(0, a);
    int4 c = v.s4567;
    int3 t = v.s9Ab;
    int n = 0;
    o[n++] = c.r;
    o[n++] = c.a;
    PUT(4, c.abgr);
    PUT(3, c.rgb);
    PUT(2, t.lo);
    PUT(2, t.even);
    o[n++] = t.hi.x;
    o[n++] = t.odd.x;
    PUT(8, v.hi);
    PUT(8, v.odd);
    PUT(4, v.lo.even);
    o[n++] = v.s01.hi;
    PUT(2, c.odd);
    PUT(4, v.SFEDC);
    int4 w = (int4)(0);
    w.gr = c.xy;
    w.ab = (int2)(8, 9);
    PUT(4, w);
    int3 u = t;
    u.hi = (int2)(100, 101);
    u.odd = (int2)(200, 201);
    PUT(3, u);
    int16 big = v;
    big.odd = big.even;
    big.hi.lo = (int4)(-1);
    PUT(16, big);
    p3[0].hi = (int2)(5, 6);
    p3[1].odd = (int2)(7, 8);
    p3[2].even = p3[2].lo;
}

// pyopencl-complex.h's complex type: anonymous structs in a union, in every address space.
typedef union { struct { float x, y; }; struct { float real, imag; }; } cfloat_t;

constant cfloat_t unit_i = { 0.0f, 1.0f };

cfloat_t cmul(cfloat_t a, cfloat_t b) {
    cfloat_t r;
    r.real = a.real * b.real - a.imag * b.imag;
    r.imag = a.real * b.imag + a.imag * b.real;
    return r;
}

kernel void complex_members(global cfloat_t *z, cfloat_t w, local cfloat_t *scratch) {
    size_t i = get_global_id(0), l = get_local_id(0);
    cfloat_t a = z[i];
    cfloat_t b = { a.imag, a.x };
    cfloat_t p = cmul(cmul(a, w), unit_i);
    scratch[l].real = p.x + b.real;
    scratch[l].imag = p.y + b.imag;
    barrier(CLK_LOCAL_MEM_FENCE);
    z[i].x = scratch[l].real;
    z[i].imag = scratch[l].y;
}

// An anonymous union and struct among named members; initializers reach their members by
// position (braces or none) and by designators, which go on inside the anonymous member.
typedef struct { int tag; union { int i; float f; }; struct { short lo, hi; }; int end; } tagged_t;

constant tagged_t tagged_table[] = { { 1, { 2 }, { 3, 4 }, 5 }, { .tag = 6, .lo = 7, 8, .end = 9 }, 10, 11, 12, 13, 14 };

kernel void tagged_members(global tagged_t *t, global int *o) {
    size_t i = get_global_id(0);
    tagged_t v = tagged_table[i % 3];
    t[i] = v;
    t[i].hi += (short)i;
    o[4 * i] = v.tag;
    o[4 * i + 1] = v.i;
    o[4 * i + 2] = v.lo * 100 + v.hi;
    o[4 * i + 3] = v.end + sizeof(tagged_table) / sizeof(tagged_t) * 1000;
}

// Initializers as C99 writes them: braces left out (also of vectors in structs), designator
// lists, designators that go on with the next member, unsized arrays sized by elided elements.
typedef struct { int a; float2 v; int b[2]; } inner_t;
typedef struct { char name[4]; inner_t in; } outer_t;

kernel void initializers(global int *o) {
    inner_t s = { 1, { 2.0f, 3.0f }, 4, 5 };
    inner_t t = { .b = 7, 8, .a = 9 };
    outer_t u = { "ab", 1, 2, 3 };
    outer_t w = { .in.b[1] = 5, .name[0] = 'x', 'y' };
    inner_t arr[] = { 1, 2, 3, 4, 5, s, 6 };
    int grid[2][3] = { 1, 2, 3, 4 };
    int sparse[] = { [3] = 1, 2, [1] = 7 };
    o[0] = s.a;
    o[1] = (int)s.v.y;
    o[2] = s.b[1];
    o[3] = t.a;
    o[4] = t.b[0];
    o[5] = t.b[1];
    o[6] = (int)t.v.x;
    o[7] = u.name[1];
    o[8] = u.in.a;
    o[9] = (int)u.in.v.y;
    o[10] = u.in.b[0];
    o[11] = w.name[0];
    o[12] = w.name[1];
    o[13] = w.in.b[1];
    o[14] = w.in.a;
    o[15] = sizeof(arr) / sizeof(arr[0]);
    o[16] = arr[0].b[1];
    o[17] = arr[1].b[1];
    o[18] = arr[2].a;
    o[19] = grid[1][0];
    o[20] = grid[0][2];
    o[21] = grid[1][1];
    o[22] = sizeof(sparse) / sizeof(int);
    o[23] = sparse[1];
    o[24] = sparse[4];
}

// Compound literals as objects: their address taken, arrays indexed and decayed to pointers,
// each initialized when it is evaluated.
typedef struct { int a; float b; } pair_t;

int sum3(const int *p) {
    return p[0] + p[1] + p[2];
}

kernel void compound_literals(global const int *in, global int *o) {
    pair_t *pp = &(pair_t){ in[0], 2.0f };
    pp->a += 1;
    int *ip = (int[]){ in[1], in[2], in[3] };
    ip[1] *= 2;
    o[0] = pp->a;
    o[1] = (int)pp->b;
    o[2] = sum3(ip);
    o[3] = ((int[2]){ 7, in[4] })[1];
    o[4] = (int)sizeof((int[]){ 1, 2, 3, 4, 5 });
    o[7] = (pair_t){ in[0] * 2, 1.0f }.a;
    for (int k = 0; k < 2; k++) {
        int *q = (int[]){ k, k + in[5] };
        o[5 + k] = q[0] * 10 + q[1];
    }
}

// A union initializer chooses its member by a designator, also through an anonymous member
// (the items after it go on inside that member).
constant cfloat_t minus_i = { .imag = -1.0f };

kernel void union_initializers(global cfloat_t *z, global int *o) {
    cfloat_t c = { .real = 5.0f, 6.0f };
    union { int i; float f; } u = { .i = 7, .f = 1.5f };
    z[0] = c;
    z[1] = minus_i;
    o[0] = u.i;
}
