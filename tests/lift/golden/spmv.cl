float multAndSumUp(float acc, float xy_0, float xy_1) {
  return acc + xy_0 * xy_1;
}

int lift_check(int i, int n, int site, global int* err) {
  if ((uint)i < (uint)n) return i;
  if (atomic_min(err, site) > site) { err[1 + 2 * site] = i; err[2 + 2 * site] = n; }
  return 0;
}

float id(float x) {
  return x;
}

kernel void spmv(const global float* restrict vals, const global int* restrict cols, const global int* restrict offs, const global float* restrict x, global float* out, int NNZ, int N, int M, global int* lift_err) {
  for (int gl_id = get_global_id(0); gl_id < N; gl_id += get_global_size(0)) {
    float acc1 = 0.0f;
    for (int i = 0; i < offs[gl_id + 1] - offs[gl_id]; i += 1) {
      acc1 = multAndSumUp(acc1, vals[i + offs[gl_id]], x[lift_check(cols[i + offs[gl_id]], M, 0, lift_err)]);
    }
    out[gl_id] = id(acc1);
  }
}
