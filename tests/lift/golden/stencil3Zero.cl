float add(float a, float b) {
  return a + b;
}

float id(float x) {
  return x;
}

kernel void stencil3Zero(const global float* restrict a, global float* out, int N) {
  for (int gl_id = get_global_id(0); gl_id < N; gl_id += get_global_size(0)) {
    float acc1 = 0.0f;
    for (int i = 0; i < 3; i += 1) {
      acc1 = add(acc1, (0 <= gl_id + i - 1 ? (gl_id + i - 1 < N ? a[gl_id + i - 1] : 0.0f) : 0.0f));
    }
    out[gl_id] = id(acc1);
  }
}
