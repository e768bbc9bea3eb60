// C11 atomics of OpenCL C 3.0 (built with -cl-std=CL3.0): every function on __global,
// __local, program-scope, generic and private objects, with memory orders and scopes.

#if !defined(__opencl_c_atomic_order_acq_rel) || !defined(__opencl_c_atomic_order_seq_cst) || !defined(__opencl_c_atomic_scope_device)
#error "the atomic features the device reports are not defined"
#endif
#ifdef __opencl_c_atomic_scope_all_devices
#error "memory_scope_all_devices is not provided"
#endif

global atomic_uint launches = ATOMIC_VAR_INIT(5);
global atomic_flag once = ATOMIC_FLAG_INIT;
global uint plain_hits;

// Fetch operations on __global counters; each work-item keeps the old values it got.
kernel void fetch_ops(global atomic_int *c, global atomic_uint *bits, global int *old) {
    int i = get_global_id(0);
    old[i * 6 + 0] = atomic_fetch_add(&c[0], 1);
    old[i * 6 + 1] = atomic_fetch_sub_explicit(&c[1], 2, memory_order_relaxed, memory_scope_device);
    old[i * 6 + 2] = atomic_fetch_min_explicit(&c[2], 100 - i, memory_order_acq_rel, memory_scope_device);
    old[i * 6 + 3] = atomic_fetch_max_explicit(&c[3], i * 3 - 50, memory_order_seq_cst);
    old[i * 6 + 4] = (int)atomic_fetch_or_explicit(&bits[0], 1u << i, memory_order_release);
    old[i * 6 + 5] = (int)atomic_fetch_and_explicit(&bits[1], ~(1u << i), memory_order_acquire, memory_scope_work_group);
    atomic_fetch_xor(&bits[2], 3u << i);
    atomic_store_explicit(&c[4 + i], atomic_exchange(&c[4 + i], i * 10) + 1, memory_order_release, memory_scope_device);
}

// A counter raised by a compare-exchange loop; each work-item records the value it replaced.
kernel void cas_add(global atomic_int *sum, global int *seen) {
    int i = get_global_id(0);
    int expected = atomic_load_explicit(sum, memory_order_relaxed, memory_scope_device);
    while (!atomic_compare_exchange_weak_explicit(sum, &expected, expected + i + 1, memory_order_acq_rel, memory_order_relaxed, memory_scope_device))
        ;
    seen[i] = expected;
}

// The expected value of a compare-exchange in every space: a failure stores the value found.
kernel void cas_expected(global atomic_int *a, global int *out) {
    local int le;
    int pe = 7;
    le = 3;
    atomic_store(&a[0], 10);
    out[0] = atomic_compare_exchange_strong(&a[0], &le, 20);
    out[1] = le;
    out[2] = atomic_compare_exchange_strong(&a[0], &le, 20);
    out[3] = atomic_load(&a[0]);
    out[4] = atomic_compare_exchange_strong_explicit(&a[0], &pe, 30, memory_order_seq_cst, memory_order_acquire, memory_scope_device);
    out[5] = pe;
    out[8] = 20;
    generic int *g = &out[8];
    out[6] = atomic_compare_exchange_weak(&a[0], g, 40);
    out[7] = atomic_load(&a[0]);
    float fe = 1.5f;
    atomic_float *f = (atomic_float *)&a[1];
    atomic_init(f, 2.5f);
    out[9] = atomic_compare_exchange_strong(f, &fe, 4.0f);
    out[10] = (int)(fe * 10);
    out[11] = atomic_compare_exchange_strong(f, &fe, 4.0f);
    out[12] = (int)atomic_load(f);
}

// A lock made of an atomic_flag: each work-item adds to plain counters and appends its id to
// a log inside the critical section. The winner's critical section is inside the loop, so
// work-items that run in step never wait for one another.
kernel void flag_lock(global atomic_flag *lock, global int *total, global int *log) {
    int i = get_global_id(0);
    bool done = false;
    while (!done) {
        if (!atomic_flag_test_and_set_explicit(lock, memory_order_acquire, memory_scope_device)) {
            int n = total[0];
            log[n] = i;
            total[0] = n + 1;
            total[1] += i;
            atomic_flag_clear_explicit(lock, memory_order_release, memory_scope_device);
            done = true;
        }
    }
}

// The same with a __local flag and __local counters, per work-group.
kernel void local_lock(global int *out) {
    local atomic_flag lock;
    local int count, sum;
    int i = get_local_id(0);
    if (i == 0) {
        atomic_flag_clear_explicit(&lock, memory_order_relaxed, memory_scope_work_group);
        count = sum = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    bool done = false;
    while (!done) {
        if (!atomic_flag_test_and_set_explicit(&lock, memory_order_acquire, memory_scope_work_group)) {
            count += 1;
            sum += i * i;
            atomic_flag_clear_explicit(&lock, memory_order_release, memory_scope_work_group);
            done = true;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i == 0) {
        out[get_group_id(0) * 2] = count;
        out[get_group_id(0) * 2 + 1] = sum;
    }
}

// Each work-item publishes a value; whoever arrives last sees all of them (acquire/release
// on the counter, or fences around a relaxed one).
kernel void last_sums(global int *data, global atomic_uint *arrived, global int *result, int fenced) {
    uint i = get_global_id(0), n = get_global_size(0);
    data[i] = i * 3 + 1;
    uint before;
    if (fenced) {
        atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release, memory_scope_device);
        before = atomic_fetch_add_explicit(arrived, 1u, memory_order_relaxed, memory_scope_device);
        atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acquire, memory_scope_device);
    } else {
        before = atomic_fetch_add_explicit(arrived, 1u, memory_order_acq_rel, memory_scope_device);
    }
    if (before == n - 1) {
        int s = 0;
        for (uint j = 0; j < n; j++)
            s += data[j];
        result[0] = s;
    }
}

// __local atomics: variables and an argument, integers and a float.
kernel void local_ops(local atomic_int *arg, global int *out, global float *swapped) {
    local atomic_int l[3];
    local atomic_float lf;
    int i = get_local_id(0), n = get_local_size(0);
    if (i == 0) {
        atomic_init(&l[0], 0);
        atomic_init(&l[1], 1000);
        atomic_init(&l[2], 0);
        atomic_init(arg, -5);
        atomic_init(&lf, -1.0f);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_fetch_add_explicit(&l[0], i, memory_order_relaxed, memory_scope_work_group);
    atomic_fetch_min(&l[1], 500 - i);
    atomic_fetch_or(&l[2], 1 << i);
    atomic_fetch_sub(arg, 1);
    swapped[i] = atomic_exchange_explicit(&lf, (float)i * 0.5f, memory_order_acq_rel, memory_scope_work_group);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i == 0) {
        out[0] = atomic_load(&l[0]);
        out[1] = atomic_load_explicit(&l[1], memory_order_acquire, memory_scope_work_group);
        out[2] = atomic_load(&l[2]);
        out[3] = atomic_load(arg);
        swapped[n] = atomic_load(&lf);
    }
}

int add_to(volatile atomic_int *p, int v) {
    return atomic_fetch_add_explicit(p, v, memory_order_relaxed, memory_scope_work_group);
}

// Generic pointers: one chosen at run time between __global and __local memory per
// work-item, a helper's generic parameter, and private atomics.
kernel void generic_ops(global atomic_int *g, local atomic_int *l, global int *out) {
    int i = get_local_id(0), grp = get_group_id(0);
    if (i == 0)
        atomic_store_explicit(l, 0, memory_order_relaxed, memory_scope_work_group);
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_int *p = g + grp;
    if (i % 2 == 0)
        p = l;
    add_to(p, 1);
    atomic_fetch_max(p, 0);
    add_to(&g[2 + grp], i);
    atomic_int mine;
    atomic_init(&mine, i);
    int was = atomic_fetch_add(&mine, 2);
    out[4 + get_global_id(0)] = was * 100 + atomic_load(&mine);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i == 0)
        out[grp] = atomic_load_explicit(l, memory_order_relaxed, memory_scope_work_group);
}

// Program-scope atomics keep their values from launch to launch (OpenCL 1.x atomics reach
// program-scope variables too).
kernel void count_launches(global uint *out) {
    out[0] = atomic_fetch_add(&launches, 1u);
    out[1] = atomic_flag_test_and_set(&once);
    out[2] = atomic_inc(&plain_hits);
}

#ifdef cl_khr_int64_extended_atomics
// 64-bit atomics: long, ulong and double.
kernel void wide_ops(global atomic_long *l, global atomic_ulong *u, global atomic_double *d, global long *old) {
    long i = get_global_id(0);
    old[i] = atomic_fetch_add(&l[0], i << 33);
    atomic_fetch_min(&l[1], -(i << 35));
    atomic_fetch_max(&u[0], (ulong)i << 40);
    atomic_fetch_xor_explicit(&u[1], 1ul << (i + 20), memory_order_relaxed, memory_scope_device);
    double prev = atomic_exchange(&d[i], (double)i * 0.25);
    double e = (double)i * 0.25;
    atomic_compare_exchange_strong(&d[i], &e, prev + 1.0);
}
#endif

#ifndef cl_ext_float_atomics
#error "cl_ext_float_atomics is not defined"
#endif

// cl_ext_float_atomics: add, sub, min and max of floats in __global and __local memory. The
// operands are small integers and halves, so every order of the operations is exact; min and
// max take the number where an operand or the start is NaN.
kernel void float_ops(global atomic_float *g, global float *old) {
    local atomic_float l[2];
    int i = get_global_id(0), li = get_local_id(0);
    if (li == 0) {
        atomic_init(&l[0], 0.0f);
        atomic_init(&l[1], 100.0f);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    old[i * 2 + 0] = atomic_fetch_add(&g[0], (float)i);
    old[i * 2 + 1] = atomic_fetch_sub_explicit(&g[1], 0.5f, memory_order_relaxed, memory_scope_device);
    atomic_fetch_min(&g[2], i == 3 ? NAN : (float)i - 10.0f);
    atomic_fetch_max_explicit(&g[3], (float)i * 2.0f, memory_order_acq_rel);
    atomic_fetch_add(&l[0], 1.5f);
    atomic_fetch_min(&l[1], (float)(li + 2));
    barrier(CLK_LOCAL_MEM_FENCE);
    if (li == 0) {
        atomic_store(&g[4 + 2 * get_group_id(0)], atomic_load(&l[0]));
        atomic_store(&g[5 + 2 * get_group_id(0)], atomic_load(&l[1]));
    }
}

// A compare-exchange loop left only by `break`, keeping the old value in a variable: each
// work-item adds its id and records the value it replaced.
kernel void cas_endless(global atomic_int *sum, global int *seen) {
    int i = get_global_id(0), found = -1;
    while (1) {
        int cur = atomic_load(sum), expected = cur;
        if (atomic_compare_exchange_strong(sum, &expected, cur + i)) {
            found = cur;
            break;
        }
    }
    seen[i] = found;
}
