// Classic kernels: tiled matrix product, histogram with __local atomics, work-group scan,
// bitonic sort, convolution with a __constant filter, tiled transpose, n-body step.

#define TILE 8

kernel void matmul(global const float *a, global const float *b, global float *c, int n) {
    local float ta[TILE][TILE];
    local float tb[TILE][TILE];
    int row = get_global_id(1), col = get_global_id(0);
    int ly = get_local_id(1), lx = get_local_id(0);
    float sum = 0.0f;
    for (int t = 0; t < n / TILE; t++) {
        ta[ly][lx] = a[row * n + t * TILE + lx];
        tb[ly][lx] = b[(t * TILE + ly) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; k++)
            sum += ta[ly][k] * tb[k][lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[row * n + col] = sum;
}

kernel void histogram(global const uchar *data, int n, global uint *bins) {
    local uint local_bins[256];
    int l = get_local_id(0), size = get_local_size(0);
    for (int i = l; i < 256; i += size)
        local_bins[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        atomic_inc(&local_bins[data[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = l; i < 256; i += size)
        atomic_add(&bins[i], local_bins[i]);
}

// Exclusive scan of each group's slice (Blelloch), 2 elements per work-item.
kernel void scan(global const int *in, global int *out, local int *tmp) {
    int l = get_local_id(0), n = get_local_size(0) * 2;
    int base = get_group_id(0) * n;
    tmp[2 * l] = in[base + 2 * l];
    tmp[2 * l + 1] = in[base + 2 * l + 1];
    int offset = 1;
    for (int d = n >> 1; d > 0; d >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l < d) {
            int ai = offset * (2 * l + 1) - 1, bi = offset * (2 * l + 2) - 1;
            tmp[bi] += tmp[ai];
        }
        offset *= 2;
    }
    if (l == 0)
        tmp[n - 1] = 0;
    for (int d = 1; d < n; d *= 2) {
        offset >>= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l < d) {
            int ai = offset * (2 * l + 1) - 1, bi = offset * (2 * l + 2) - 1;
            int t = tmp[ai];
            tmp[ai] = tmp[bi];
            tmp[bi] += t;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    out[base + 2 * l] = tmp[2 * l];
    out[base + 2 * l + 1] = tmp[2 * l + 1];
}

// Sorts one work-group's elements (one per work-item) in __local memory.
kernel void bitonic(global int *data, local int *v) {
    uint l = get_local_id(0), n = get_local_size(0);
    v[l] = data[get_global_id(0)];
    for (uint size = 2; size <= n; size <<= 1) {
        for (uint stride = size >> 1; stride > 0; stride >>= 1) {
            barrier(CLK_LOCAL_MEM_FENCE);
            uint partner = l ^ stride;
            if (partner > l) {
                bool ascending = (l & size) == 0;
                int a = v[l], b = v[partner];
                if ((a > b) == ascending) {
                    v[l] = b;
                    v[partner] = a;
                }
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    data[get_global_id(0)] = v[l];
}

constant float filter[5] = { 0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f };

kernel void convolve(global const float *in, global float *out, int n) {
    int i = get_global_id(0);
    float s = 0.0f;
    for (int k = -2; k <= 2; k++) {
        int j = clamp(i + k, 0, n - 1);
        s += filter[k + 2] * in[j];
    }
    out[i] = s;
}

kernel void transpose(global const float *in, global float *out, int width, int height) {
    local float tile[TILE][TILE + 1];
    int x = get_global_id(0), y = get_global_id(1);
    tile[get_local_id(1)][get_local_id(0)] = in[y * width + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    int tx = get_group_id(1) * TILE + get_local_id(0);
    int ty = get_group_id(0) * TILE + get_local_id(1);
    out[ty * height + tx] = tile[get_local_id(0)][get_local_id(1)];
}

kernel void nbody(global const float4 *pos, global float4 *acc, int n, float soft) {
    int i = get_global_id(0);
    float4 p = pos[i];
    float3 a = (float3)(0.0f);
    for (int j = 0; j < n; j++) {
        float4 q = pos[j];
        float3 d = q.xyz - p.xyz;
        float r2 = dot(d, d) + soft;
        float inv = rsqrt(r2);
        a += d * (q.w * inv * inv * inv);
    }
    acc[i] = (float4)(a, 0.0f);
}

// A kernel called from a kernel runs as a function of the caller's work-item; the __local
// variables it declares belong to the caller's work-group (implementation-defined in OpenCL C).
kernel void kk_scale(global float *o, float f) {
    size_t i = get_global_id(0);
    o[i] = o[i] * f;
}

kernel void kk_twice(global float *o, global float *p) {
    kk_scale(o, 2.0f);
    kk_scale(p + 1, 3.0f);
}

kernel void kk_stage(global const int *in, global int *out) {
    local int t[16];
    t[get_local_id(0)] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = t[15 - get_local_id(0)];
}

kernel void kk_outer(global const int *in, global int *out) {
    kk_stage(in, out);
}
