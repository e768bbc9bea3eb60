// Assorted language features: 64-bit atomics, switch on char, __local and private arrays of
// structs, __constant structs with float3 and 2-D arrays, vector division and narrow vector
// arithmetic, pointer comparisons and walks, compound assignment on vectors and swizzles,
// nested structs, compound literals, enums, bool, the comma operator.

#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable

kernel void scalar_compare(global const float *x, global int *o) {
    o[0] = x[0] == x[1];
    o[1] = x[0] < x[1];
    o[2] = x[0] >= x[1];
    o[3] = isequal(x[0], x[1]);
    o[4] = isgreaterequal(x[0], x[1]);
}

kernel void long_atomics(global ulong *c) {
    atom_add(&c[0], 5UL);
    atom_inc(&c[1]);
    atom_max(&c[2], (ulong)get_global_id(0) << 33);
}

kernel void switch_char(global const char *c, global int *o) {
    size_t g = get_global_id(0);
    switch (c[g]) {
    case 'a': o[g] = 1; break;
    case -1: o[g] = 2; break;
    case 'z': case 'y': o[g] = 3; break;
    default: o[g] = 4;
    }
}

typedef struct { float x; int y; } P;

kernel void local_structs(global P *o) {
    local P tmp[8];
    int l = get_local_id(0);
    tmp[l].x = l * 0.5f;
    tmp[l].y = -l;
    barrier(CLK_LOCAL_MEM_FENCE);
    o[get_global_id(0)] = tmp[7 - l];
}

typedef struct { float3 p; int id; } S;
constant S table[2] = { { (float3)(1, 2, 3), 7 }, { (float3)(4, 5, 6), 8 } };
constant int m[2][3] = { { 1, 2, 3 }, { 4, 5, 6 } };

kernel void constant_structs(global float4 *o, global int *i, int r) {
    o[0] = (float4)(table[1].p, table[0].p.z);
    i[0] = table[0].id + table[r].id * 10;
    i[1] = m[r][2] * 100 + m[1 - r][0];
}

typedef struct { int a; float4 v; } Q;

kernel void private_structs(global float4 *o) {
    Q q[4];
    for (int i = 0; i < 4; i++) {
        q[i].a = i;
        q[i].v = (float4)(i, i * 2, q[i].a * 3, -i);
    }
    o[get_global_id(0)] = q[get_global_id(0) & 3].v;
}

kernel void vector_division(global const int4 *a, global const int4 *b, global int4 *o, global const uint4 *ua, global const uint4 *ub, global uint4 *uo) {
    o[0] = a[0] / b[0];
    o[1] = a[0] % b[0];
    uo[0] = ua[0] / ub[0];
    uo[1] = ua[0] % ub[0];
}

kernel void narrow_vectors(global const char4 *c, global char4 *o, global const uchar4 *u, global uchar4 *uo, global const long2 *l, global long2 *lo) {
    o[0] = c[0] * c[1] / (char4)(3);
    o[1] = -c[0];
    uo[0] = u[0] - u[1];
    lo[0] = l[0] * l[1] + (l[0] >> 3);
    lo[1] = l[0] << 5;
}

typedef struct { int a, b; } T;
T get_pair(global const T *t, int i) { return t[i]; }

kernel void pointer_walks(global const int *a, global const T *t, global int *o) {
    global const int *p = a + 3;
    o[0] = p > a;
    o[1] = p == a + 3;
    o[2] = p <= a;
    int s = 0;
    for (global const int *q = a; q < a + 4; q++)
        s += *q;
    o[3] = s;
    T v = get_pair(t, 1);
    o[4] = v.a * 10 + v.b;
}

kernel void compound_assignments(global float4 *o, global int4 *i) {
    float4 v = o[0];
    v *= 2.0f;
    v.xy += (float2)(1.0f);
    v.w /= 4.0f;
    o[1] = v;
    int4 w = i[0];
    w <<= 2;
    w.yz |= (int2)(1);
    w.x %= 5;
    w -= 1;
    i[1] = w;
}

typedef struct { float2 p; } In;
typedef struct { In in[2]; int n; } Out;
enum Color { RED, GREEN = 5, BLUE };

kernel void aggregates(global Out *o, global T *t, global int *e) {
    Out v = o[0];
    v.in[1].p.y = 9.0f;
    v.n++;
    o[1] = v;
    t[0] = (T){ 3, 4 };
    enum Color c = BLUE;
    e[0] = c + RED * 10 + GREEN * 100;
    bool b = e[1] > 3;
    e[2] = b;
    e[3] = !b;
    int i = 0, j = 10;
    while (i++, j--, i < j)
        ;
    e[4] = i * 100 + j;
}

kernel void local_tiles(global float *o) {
    local float tile[4][4];
    int x = get_local_id(0), y = get_local_id(1);
    tile[y][x] = x + y * 4;
    barrier(CLK_LOCAL_MEM_FENCE);
    o[get_global_id(1) * 8 + get_global_id(0)] = tile[x][y] + get_group_id(0) * 100 + get_group_id(1) * 1000;
}

kernel void vector_builtins(global const int4 *a, global int4 *o, global uint4 *u, global float8 *f) {
    u[0] = abs(a[0]);
    u[1] = abs_diff(a[0], a[1]);
    o[0] = clamp(a[0], -5, 5);
    u[2] = rotate(as_uint4(a[0]), (uint4)(1, 2, 3, 4));
    u[3] = popcount(as_uint4(a[0]));
    o[1] = mad_hi(a[0], a[1], (int4)(7));
    o[2] = ctz(a[0]);
    f[0] = convert_float8((int8)(a[0], a[1]));
    float3 v = (float3)(1.0f, -2.0f, 0.5f);
    int3 bits = as_int3(v);
    o[3] = (int4)(bits, 0);
}

// Value arguments of every scalar type and several vectors (their ABI packing).
kernel void value_args(global long *o, char c, uchar uc, short s, ushort us, int i, uint u, long l,
                       ulong ul, float f, float2 f2, int3 i3, char4 c4, float4 f4) {
    o[0] = c; o[1] = uc; o[2] = s; o[3] = us; o[4] = i; o[5] = u; o[6] = l; o[7] = (long)ul;
    o[8] = (long)(f * 4.0f); o[9] = (long)(f2.x * 10.0f + f2.y);
    o[10] = i3.x + i3.y * 10 + i3.z * 100;
    o[11] = c4.x + c4.y + c4.z + c4.w;
    o[12] = (long)(f4.x + f4.y + f4.z + f4.w);
}

// More value-argument bytes than push constants hold: the rest goes to a uniform buffer.
kernel void big_value_args(global float *o, float16 a, float16 b, float16 c, float16 d, int last) {
    o[0] = a.s0 + a.sF;
    o[1] = b.s5;
    o[2] = c.sA + d.s3;
    o[3] = last;
}

// Compound assignments and ++/-- convert back to the (narrow) left operand's type.
kernel void compound_conversions(global int *o) {
    char c = 100; c += 100; o[0] = c;
    uchar uc = 10; uc -= 20; o[1] = uc;
    short s = 1000; s *= 100; o[2] = s;
    int i = 7; i *= 2.5f; o[3] = i;
    int j = 100; j /= 3.0f; o[4] = j;
    float f = 1.5f; f += 2; o[5] = (int)(f * 2);
    uint u = 5; u -= 10; o[6] = u == 4294967291u;
    char d = 127; d++; o[7] = d;
    uchar e = 0; e--; o[8] = e;
    int k = 1; k <<= 33; o[9] = k;
    long l = 1; l <<= 40; o[10] = (int)(l >> 32);
    short t = -8; t >>= 1; o[11] = t;
    ushort w = 65535; w += 1; o[12] = w;
    int m = -7; m %= 3; o[13] = m;
    char p = 5; p ^= 0x1ff; o[14] = p;
    float4 v = (float4)(1.0f); v += 1; o[15] = (int)(v.x + v.w);
    int4 iv = (int4)(3); iv *= (int4)(2, 3, 4, 5); o[16] = iv.s3 - iv.s0;
}

// Constant expressions folded by the compiler follow the same C rules as run-time arithmetic.
constant long folded_table[] = {
    (uchar)200 + (uchar)100,        // int 300
    (char)300,                      // 44
    -1 < 1u,                        // 0: -1 converts to uint
    -1 < 1,                         // 1
    -1L < 1u,                       // 1: uint converts to long
    0xffffffffu * 3u,               // uint wraps: 4294967293
    -5 % 3,                         // -2
    -5 / 3,                         // -1
    -5 >> 1,                        // -3
    0x80000000 >> 31,               // uint: 1
    -2147483648 >> 31,              // long: -1
    (ushort)-1,                     // 65535
    ~0u,                            // 4294967295
    1 << 33,                        // shift count masked to 1: 2
    (long)1 << 40,                  // 1099511627776
    2147483647 + 1L,                // 2147483648
    (int)3.99f,                     // 3
    (int)-3.99f,                    // -3
    (uint)(char)-1,                 // 4294967295
    sizeof(1 ? (char)1 : (short)1), // int: 4
    'a' * 2,                        // 194
    (7 > 3) + (7 == 7) * 10,        // 11
    10 / 4 * 4.0f,                  // 8 (integer division first)
    0x7fffffffffffffffL + 1 < 0,    // 1: wraps to LONG_MIN
};

kernel void folded(global long *o) {
    size_t g = get_global_id(0);
    o[g] = folded_table[g];
}
