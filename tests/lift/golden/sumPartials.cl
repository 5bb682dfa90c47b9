float add(float a, float b) {
  return a + b;
}

float id(float x) {
  return x;
}

kernel void sumPartials(const global float* restrict x, global float* out, int N) {
  float acc1 = 0.0f;
  for (int i = 0; i < N; i += 1) {
    acc1 = add(acc1, x[i]);
  }
  out[0] = id(acc1);
}
