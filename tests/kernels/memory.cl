// Memory: __local variables and arguments with barriers (A8), __constant arguments and
// program-scope __constant data (A9-A11), byte stores from neighbouring work-items, atomics.

constant int table[8] = { 1, 1, 2, 3, 5, 8, 13, 21 };
constant float4 weights = (float4)(0.5f, 0.25f, 2.0f, -1.0f);
typedef struct { int base; float scale; short steps[3]; } Config;
constant Config config = { 7, 1.5f, { 10, 20, 30 } };
constant Config configs[2] = { { 1, 2.0f, { 1, 2, 3 } }, { 4, 5.0f, { 6, 7, 8 } } };

// Every work-group reverses its own slice in __local memory.
kernel void reverse_groups(global const int *in, global int *out, local int *tmp) {
    local int fixed[64];
    size_t l = get_local_id(0), n = get_local_size(0);
    tmp[l] = in[get_global_id(0)];
    fixed[l] = (int)get_group_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tmp[n - 1 - l] * 1000 + fixed[n - 1 - l];
}

// The group's sum, by tree reduction in __local memory.
kernel void group_sum(global const int *in, global int *out, local int *scratch) {
    int l = get_local_id(0);
    scratch[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (l < s)
            scratch[l] += scratch[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        out[get_group_id(0)] = scratch[0];
}

// Two __local pointer arguments of different sizes and types.
kernel void two_locals(global float *out, local float *a, local short *b) {
    int l = get_local_id(0);
    a[l] = l * 0.5f;
    b[l] = (short)(l * 3);
    barrier(CLK_LOCAL_MEM_FENCE);
    int n = get_local_size(0);
    out[get_global_id(0)] = a[(l + 1) % n] + b[(l + 2) % n];
}

kernel void constants(constant int *c, constant float4 *cv, global int *o, global float *f) {
    size_t g = get_global_id(0);
    o[g] = c[g] + table[g & 7] + config.base + config.steps[g % 3] + configs[1].steps[2];
    float4 w = cv[0] * weights;
    f[g] = w.x + w.y + w.z + w.w + config.scale * configs[0].scale;
}

// Neighbouring work-items write neighbouring bytes and shorts.
kernel void byte_stores(global char *c, global uchar *u, global short *s, global char3 *c3) {
    size_t g = get_global_id(0);
    c[g] = (char)(g * 3 - 100);
    u[g] = (uchar)(255 - g);
    s[g] = (short)(g * -7);
    c3[g] = (char3)((char)g, -(char)g, (char)(g * 2));
}

kernel void atomics(global int *counters, global uint *bits, global int *minmax, global int *old) {
    int g = get_global_id(0);
    atomic_add(&counters[0], 1);
    atomic_sub(&counters[1], 2);
    atomic_inc(&counters[2]);
    atomic_dec(&counters[3]);
    atomic_or(&bits[0], 1u << (g & 31));
    atomic_and(&bits[1], ~(1u << (g & 31)));
    atomic_xor(&bits[2], 1u << (g & 7));
    atomic_min(&minmax[0], g * 3 - 50);
    atomic_max(&minmax[1], g * 3 - 50);
    int prev = atomic_xchg(&old[g], g);
    old[g + 64] = prev;
    old[g + 128] = atomic_cmpxchg(&counters[4], 0, 1000 + g);
}

kernel void local_atomics(global int *out) {
    local int count;
    local uint mask;
    if (get_local_id(0) == 0) { count = 0; mask = 0; }
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_add(&count, (int)get_local_id(0));
    atom_or(&mask, 1u << get_local_id(0));
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        out[get_group_id(0) * 2] = count;
        out[get_group_id(0) * 2 + 1] = (int)mask;
    }
}

// A11: string literals live in __constant memory.
constant char greeting[] = "hello";
int length(constant char *s) {
    int n = 0;
    while (s[n])
        n++;
    return n;
}

kernel void strings(global char *o, global int *n) {
    constant char *s = "world!";
    char buf[] = "abc";
    uchar ub[6] = { "xyz" };
    size_t g = get_global_id(0);
    o[g] = s[g] + greeting[g % 6] + buf[g % 4] + ub[g % 6];
    n[0] = sizeof("abc") * 100 + sizeof(buf) * 10 + sizeof(greeting);
    n[1] = "xyz"[1];
    n[2] = length("a longer string") * 10 + length("");
}

// A9: __constant variables at the outermost scope of a kernel.
kernel void kernel_scope_constants(global int *o) {
    constant int lut[4] = { 10, 20, 30, 40 };
    constant float2 scale = (float2)(0.5f, 4.0f);
    size_t g = get_global_id(0);
    o[g] = lut[g & 3] + (int)(scale.y * g) + (int)(scale.x * 10);
}

// A10: twelve program-scope tables (VeraCrypt's kernels have 17) pass the eight constant
// buffers a kernel may use: they share one buffer, each at its own offset, of every type.
typedef struct { uchar tag; short delta; float scale; } entry_t;
constant uchar t_u8[5] = { 1, 2, 3, 250, 255 };
constant char t_i8[3] = { -1, -128, 127 };
constant ushort t_u16[3] = { 65535, 7, 300 };
constant uint t_u32[4] = { 0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u };
constant ulong t_u64[2] = { 0x6a09e667f3bcc908ul, 0xbb67ae8584caa73bul };
constant float4 t_f4[2] = { (float4)(1.5f, -2.0f, 0.25f, 8.0f), (float4)(3.0f, 0.5f, -1.0f, 2.0f) };
constant entry_t t_rec[2] = { { 7, -300, 0.5f }, { 9, 1000, 2.0f } };
constant int t_one = 11;
constant uchar t_odd[3] = { 5, 6, 7 };
constant short t_s16[2] = { -2, 3 };
constant float t_d[1] = { 0.125f };
constant uint t_u32b[3] = { 100, 200, 300 };
kernel void packed_constants(global ulong *o, int pick) {
    size_t g = get_global_id(0);
    constant uint *chosen = pick ? t_u32 : t_u32b;
    constant uchar *bytes = (constant uchar *)t_u32 + (g & 3);
    ulong acc = t_u8[g % 5] + t_i8[g % 3] + t_u16[g % 3] + t_u32[g & 3] + t_one + t_odd[g % 3] + t_s16[g & 1];
    acc += (ulong)(int)(t_f4[g & 1].s0 * 4 + t_f4[g & 1].w) + t_rec[g & 1].tag + t_rec[g & 1].delta + (int)(t_rec[g & 1].scale * 8);
    acc += (ulong)(t_d[0] * 64) + chosen[g % 3] + *bytes;
    o[2 * g] = acc;
    o[2 * g + 1] = t_u64[g & 1] ^ acc;
}

#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable

// Every atomic on __local memory, 64-bit atomics, and atomic_xchg on float.
kernel void more_atomics(global int *o, global long *l, global float *f) {
    local int v[8];
    local uint u[2];
    int g = get_local_id(0);
    if (g == 0) {
        for (int i = 0; i < 8; i++) v[i] = 0;
        v[3] = 1000; v[4] = -1000; v[5] = -1; u[0] = 0; u[1] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_add(&v[0], g);
    atomic_sub(&v[1], g);
    atomic_inc(&v[2]);
    atomic_min(&v[3], g * 7 - 20);
    atomic_max(&v[4], g * 7 - 20);
    atomic_and(&v[5], ~(1 << g));
    atomic_or(&v[6], 1 << g);
    atomic_xor(&v[7], 3 << g);
    atomic_max(&u[0], (uint)g * 100u);
    atomic_cmpxchg(&u[1], (uint)g, (uint)g + 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (g == 0) {
        for (int i = 0; i < 8; i++) o[i] = v[i];
        o[8] = u[0];
    }
    atom_add(&l[0], (long)g << 32);
    atom_min(&l[1], -((long)g << 40));
    atom_max(&l[2], (long)g << 40);
    atom_or(&l[3], 1L << (g + 32));
    atom_xor(&l[4], 1L << 40);
    atom_and(&l[5], ~(1L << (g + 32)));
    atom_cmpxchg(&l[6], 0L, 1L << 50);
    f[g] = atomic_xchg(&f[32], (float)g);
}

// Atomics through pointers (a helper's __local pointer parameter, a pointer variable, a
// __local pointer argument), beside a __local array that no atomic touches.
void bump(local int *c, int by) { atomic_add(c, by); }

kernel void local_atomics_through_pointers(global int *out, local int *arg) {
    local int counts[2];
    local int plain[32];
    size_t l = get_local_id(0);
    plain[l] = (int)l * 2;
    if (l == 0) { counts[0] = 0; counts[1] = 0; arg[0] = 0; }
    barrier(CLK_LOCAL_MEM_FENCE);
    bump(&counts[0], 1);
    local int *p = counts + 1;
    atomic_add(p, (int)l);
    atomic_inc(arg);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = plain[31 - l] + counts[0] * 1000 + counts[1] * 100000 + arg[0] * 10;
}
