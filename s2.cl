kernel void k(global ulong *p) {
  p[0] = sizeof(global int *);  p[1] = sizeof(local int*); p[2] = sizeof(constant char*); p[3] = sizeof(int*); p[4] = sizeof(size_t);
}
