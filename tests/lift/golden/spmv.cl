float multAndSumUp(float acc, float xy_0, float xy_1) {
  return acc + xy_0 * xy_1;
}

float id(float x) {
  return x;
}

kernel void spmv(const global float* restrict vals, const global int* restrict cols, const global int* restrict offs, const global float* restrict x, global float* out, int NNZ, int N, int M) {
  for (int gl_id = get_global_id(0); gl_id < N; gl_id += get_global_size(0)) {
    float acc1 = 0.0f;
    for (int i = 0; i < offs[gl_id + 1] - offs[gl_id]; i += 1) {
      acc1 = multAndSumUp(acc1, vals[i + offs[gl_id]], x[cols[i + offs[gl_id]]]);
    }
    out[gl_id] = id(acc1);
  }
}
