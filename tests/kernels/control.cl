// Control flow: switch with fall-through, do-while, break/continue, early return, nested loops.

int classify(int v) {
    switch (v & 7) {
    case 0:
        return 100;
    case 1:
    case 2:
        v += 10;      // falls through
    case 3:
        v *= 2;
        break;
    case 4: {
        int t = v;
        v = t - 1;
        break;
    }
    default:
        v = -v;
    }
    return v;
}

int collatz(int n) {
    int steps = 0;
    do {
        if (n == 1) break;
        n = (n & 1) ? 3 * n + 1 : n / 2;
        steps++;
    } while (steps < 1000);
    return steps;
}

int odd_sum(int n) {
    int s = 0;
    for (int i = 0; ; i++) {
        if (i >= n) break;
        if ((i & 1) == 0) continue;
        s += i;
    }
    return s;
}

kernel void control(global const int *in, global int *o) {
    size_t g = get_global_id(0);
    int v = in[g];
    global int *r = o + g * 6;
    r[0] = classify(v);
    r[1] = collatz((v & 63) + 1);
    r[2] = odd_sum(v & 31);
    int w = 0;
    while (w < 5) {
        if (w == v % 5) { r[3] = w; break; }
        ++w;
    }
    if (w == 5) r[3] = -1;
    int count = 0;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            if (j > i) break;
            count += (i + j) & v;
        }
    r[4] = count;
    r[5] = v > 0 ? (v > 100 ? 2 : 1) : 0;
    if (v < -1000)
        return;
    r[5] += 10;
}

kernel void early_exit(global int *o, int limit) {
    int g = get_global_id(0);
    if (g >= limit) return;
    o[g] = g * 2;
}

kernel void goto_free_loops(global int *o) {
    int i = 0, acc = 0;
    while (1) {
        i++;
        if (i % 3 == 0) continue;
        acc += i;
        if (i > 20) break;
    }
    o[0] = acc;
    o[1] = i;
    int k = 10;
    do k -= 3; while (k > 0);
    o[2] = k;
    int sw = 0;
    for (int n = 0; n < 6; n++) {
        switch (n) {
        case 1: sw += 1;
        case 2: sw += 10; break;
        case 5: continue;
        default: sw += 100;
        }
        sw += 1000;
    }
    o[3] = sw;
}

// Returns from inside nested loops and switches of inlined helpers.
int find(global const int *v, int n, int key) {
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < 2; j++) {
            switch ((v[i] + j) & 3) {
            case 0:
                if (v[i] == key) return i * 10 + j;
                break;
            case 1:
                continue;
            default:
                if (v[i] == key) return -(i * 10 + j) - 1;
            }
        }
    }
    return -999;
}

int nested_breaks(int limit) {
    int count = 0;
    while (1) {
        do {
            count++;
            if (count % 7 == 0) break;
        } while (count < limit);
        if (count >= limit) break;
        count += 2;
    }
    return count;
}

kernel void nested_returns(global const int *v, global int *o) {
    int g = get_global_id(0);
    o[g] = find(v, 16, v[g]);
    o[16 + g] = nested_breaks(g * 5);
}

// Loops under unroll hints give the results of the loops as written: unrolled fully (past the
// 16 iterations unrolled without a hint, a 64-bit counter), by a count with a run-time bound
// and a break, by a count smaller than a constant trip count, or not at all.
kernel void unroll_hints(global const int *in, global int *o, int n) {
    int g = get_global_id(0), v = in[g];
    int a = 0, b = 0, c = 0, d = 0, e = 0, f = 0;
    #pragma unroll
    for (int i = 0; i < 100; i++) a += (v >> (i & 7)) ^ i;
    __attribute__((opencl_unroll_hint(4)))
    for (int i = 0; i < n + g; i++) {
        if (i * 3 > v + 90) break;
        b += i ^ v;
    }
    #pragma unroll 3
    for (int i = 7; i > 0; i -= 2) c = c * 3 + i + v;
    #pragma nounroll
    for (int i = 0; i < 4; i++) d += v * i;
    __attribute__((opencl_unroll_hint))
    for (size_t i = 0; i < 20; ++i) e += (int)(i * i) & v;
    int i = 0;
    __attribute__((opencl_unroll_hint(2)))
    while (i < 5) {
        f += i * v;
        i++;
    }
    o[6 * g] = a; o[6 * g + 1] = b; o[6 * g + 2] = c; o[6 * g + 3] = d; o[6 * g + 4] = e; o[6 * g + 5] = f;
}
