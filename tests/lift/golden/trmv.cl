float multAndSumUp(float acc, float xy_0, float xy_1) {
  return acc + xy_0 * xy_1;
}

float id(float x) {
  return x;
}

kernel void trmv(const global float* restrict m, const global float* restrict v, global float* out, int N) {
  for (int gl_id = get_global_id(0); gl_id < N; gl_id += get_global_size(0)) {
    float acc1 = 0.0f;
    for (int i = 0; i < gl_id + 1; i += 1) {
      acc1 = multAndSumUp(acc1, m[(int)(((long)gl_id) + ((long)i) + (((long)gl_id) * ((long)gl_id) - ((long)gl_id)) / 2L)], v[i]);
    }
    out[gl_id] = id(acc1);
  }
}
