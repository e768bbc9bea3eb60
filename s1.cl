kernel void k(global int *p) {
  int x[-1];
}
