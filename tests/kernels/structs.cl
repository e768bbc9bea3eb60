// Structs (OpenCL C layout), arrays, pointer arithmetic, &s.field, helper functions taking
// __global and __local pointers, structs by value.

typedef struct {
    int c;       // 0
    float3 v;    // 16 (float3 takes 16 bytes, aligned to 16)
    int i;       // 32
    int2 s;      // 40
    long l;      // 48
} Item;          // 64

struct Pair { int a; float b; };

kernel void layout(global ulong *o) {
    o[0] = sizeof(Item);
    o[1] = sizeof(float3);
    o[2] = __alignof__(Item);
    o[3] = sizeof(struct Pair);
}

kernel void update_items(global Item *items) {
    size_t g = get_global_id(0);
    global Item *p = items + g;
    p->v = p->v * 2.0f + (float3)(p->c);
    p->i += p->s.x * p->s.y;
    p->l = p->l * 3 - g;
    p->c = -p->c;
}

struct Pair make_pair(int a, float b) {
    struct Pair p = { a, b };
    return p;
}

float scale(struct Pair p) { return p.a * p.b; }

kernel void by_value(Item it, struct Pair pair, global float *o, global int *oi) {
    struct Pair q = make_pair(pair.a + 1, pair.b * 2.0f);
    o[0] = scale(q);
    o[1] = it.v.x + it.v.y + it.v.z;
    oi[0] = it.c + it.i + it.s.y + (int)it.l;
    Item copy = it;
    copy.i = 7;
    oi[1] = copy.i + it.i;
}

void add_to(global int *p, int n, int v) {
    for (int i = 0; i < n; i++)
        p[i] += v;
}

int sum_local(local const int *p, int n) {
    int s = 0;
    for (int i = 0; i < n; ++i) s += p[i];
    return s;
}

kernel void pointers(global int *data, global struct Pair *pairs, global int *o) {
    int arr[8];
    for (int i = 0; i < 8; i++) arr[i] = i * i;
    int *p = arr + 2;
    int *q = &arr[6];
    o[0] = q - p;
    o[1] = *(p + 3);
    o[2] = p[-1];
    p++;
    o[3] = *p;
    o[4] = *--q;
    add_to(data + 4, 4, 100);
    struct Pair local_pair = pairs[1];
    int *field = &local_pair.a;
    *field = 55;
    float *fb = &local_pair.b;
    *fb += 1.0f;
    global struct Pair *second = &pairs[1];
    *second = local_pair;
    pairs[0].b = 2.5f;
    global struct Pair *pp = pairs;
    (pp + 2)->a = (pp + 1)->a + 1;
    o[5] = (int)(&pairs[2] - pairs);
    int2 grid[3][2];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++)
            grid[i][j] = (int2)(i, j);
    o[6] = grid[2][1].x * 10 + grid[2][1].y;
    o[7] = sizeof(grid) / sizeof(grid[0]);
}

kernel void local_helper(global const int *in, global int *o, local int *scratch) {
    local int fixed[16];
    int l = get_local_id(0);
    scratch[l] = in[get_global_id(0)];
    fixed[l] = l;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0)
        o[get_group_id(0)] = sum_local(scratch, get_local_size(0)) + sum_local(fixed, 16);
}

// 8- and 16-bit members next to a float3 and a long.
typedef struct {
    char c;      // 0
    float3 v;    // 16
    short2 s;    // 32
    uchar u;     // 36
    long l;      // 40
} Mixed;         // 48

kernel void mixed_members(global Mixed *m) {
    size_t g = get_global_id(0);
    global Mixed *p = &m[g];
    p->c = -p->c;
    p->s = p->s.yx;
    p->u += 1;
    p->v.y += p->c;
    p->l <<= 1;
}

typedef union { float f; uint u; uchar b[4]; } Bits;

kernel void unions(global const float *f, global uint *o) {
    Bits x;
    x.f = f[0];
    o[0] = x.u;
    o[1] = x.b[3];
    x.u ^= 0x80000000u;
    o[2] = as_uint(x.f);
}

typedef struct { char tag; short2 s; float f[3]; uchar u; } Small;

kernel void small_by_value(Small a, Mixed m, global float *o) {
    o[0] = a.tag + a.s.x + a.s.y * 10 + a.u * 1000;
    o[1] = a.f[0] + a.f[1] + a.f[2];
    o[2] = m.c + m.v.z + m.s.y + m.u + (float)m.l;
}

// Views of one buffer through pointer casts: bytes of ints, a float written as bits, int2 pairs.
kernel void pointer_casts(global int *data, global int *o) {
    global uchar *bytes = (global uchar *)data;
    o[0] = bytes[0] + bytes[1] * 256 + bytes[7] * 65536;
    global uint *bits = (global uint *)(data + 2);
    *bits = as_uint(1.5f);
    global int2 *pairs = (global int2 *)data;
    int2 p = pairs[2];
    o[1] = p.x + p.y;
    global short *halves = (global short *)data;
    halves[9] = -1;
    o[2] = data[4];
}

// Pointers to struct members (a base, a path of members and element indices) in __global,
// __private and __local memory; run as 2 groups of 4.
typedef struct { int a; int b; float4 v; int arr[4]; } Rec;

kernel void member_pointers(global Rec *recs, global int *o) {
    size_t g = get_global_id(0), l = get_local_id(0);
    Rec r = recs[g];
    global int *pa = &recs[1].a;
    global int *pb = &recs[g].b;
    *pb += *pa;
    pb[0] *= 2;
    global float4 *pv = &recs[g].v;
    pv->y = pv->x + pv[0].z;
    global int *pe = &recs[g].arr[1];
    pe[1] = pe[0] + pe[-1];
    pe = g % 2 ? &recs[g].arr[3] : pe;
    *pe += 100;
    o[8 * g] = pe - &recs[g].arr[0];
    o[8 * g + 1] = (pb == &recs[1].b) + 2 * (&recs[g].a < pb) + 4 * (pe > &recs[1].arr[2]) + 8 * (pa != &recs[1].b);

    private int *pr = &r.b;
    *pr = 7;
    pr[0] += r.a;
    Rec rs[2];
    rs[0] = r;
    rs[1] = r;
    private int *q = &rs[g % 2].a;
    *q = -1;
    private int *qa = &rs[1].arr[2];
    qa[-1] = 5;
    o[8 * g + 2] = r.b;
    o[8 * g + 3] = rs[0].a * 1000 + rs[1].a;
    o[8 * g + 4] = rs[1].arr[1];

    local Rec lr[4];
    local int *pl = &lr[l].b;
    *pl = (int)g * 3;
    local float4 *lv = &lr[l].v;
    *lv = (float4)((float)g);
    barrier(CLK_LOCAL_MEM_FENCE);
    local int *pn = &lr[(l + 1) % 4].b;
    local float4 *ln = &lr[(l + 1) % 4].v;
    o[8 * g + 5] = *pn;
    o[8 * g + 6] = (int)ln->w;
    o[8 * g + 7] = (int)ln[0].x + (pn == &lr[l].b);
}

// Member pointers into 8/16-bit data (a word-viewed buffer) and into __constant structs.
typedef struct { char c; short s; int i; } Narrow;

kernel void narrow_member_pointers(global Narrow *m, constant Narrow *k, global int *o) {
    size_t g = get_global_id(0);
    global short *ps = &m[g].s;
    *ps += 3;
    global char *pc = &m[g].c;
    pc[0] = (char)(g * 5);
    constant int *pk = &k[g % 2].i;
    o[g] = *ps + *pc + *pk;
}

// Atomics on members of __global structs, directly and through a pointer variable.
kernel void member_atomics(global Rec *recs) {
    size_t g = get_global_id(0);
    atomic_add(&recs[g % 2].b, 1);
    global int *p = &recs[0].arr[1];
    atomic_add(p + 1, (int)g);
    atomic_max(&recs[1].a, (int)g);
}

// Pointers to pointer variables: helpers that write through and move a cursor, a chain of
// them, and one to a pointer into private memory.
void advance(global int **cursor, int n) { *cursor += n; }
void put(global int **cursor, int v) { **cursor = v; (*cursor)++; }

kernel void pointer_to_pointer(global int *o) {
    size_t g = get_global_id(0);
    global int *cur = o + 8 * g;
    global int **pc = &cur;
    put(pc, (int)g);
    put(&cur, 10);
    advance(&cur, 2);
    (*pc)[-1] = 20;
    global int ***ppc = &pc;
    **ppc = **ppc + 1;
    ***ppc = 30;
    int x = 5;
    private int *px = &x;
    private int **ppx = &px;
    **ppx += 2;
    o[8 * g + 6] = x + (pc == &cur) * 100;
    o[8 * g + 7] = *pc - (o + 8 * g);
}
