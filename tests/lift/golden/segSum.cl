float add(float a, float b) {
  return a + b;
}

float id(float x) {
  return x;
}

kernel void segSum(const global float* restrict vals, const global int* restrict offs, global float* out, int NNZ, int N) {
  for (int gl_id = get_global_id(0); gl_id < N; gl_id += get_global_size(0)) {
    float acc1 = 0.0f;
    for (int i = 0; i < offs[gl_id + 1] - offs[gl_id]; i += 1) {
      acc1 = add(acc1, vals[i + offs[gl_id]]);
    }
    out[gl_id] = id(acc1);
  }
}
