float4 absAndSumUp_float4(float4 acc, float4 x) {
  return acc + fabs(x);
}

kernel void asumIntel(const global float* restrict x, global float* out, int N) {
  for (int wg_id = get_group_id(0); wg_id < N / 32768; wg_id += get_num_groups(0)) {
    {
      int l_id = get_local_id(0);
      float4 acc1 = (float4)(0.0f);
      for (int i = 0; i < 8192; i += 1) {
        acc1 = absAndSumUp_float4(acc1, vload4(i + 8192 * wg_id, x));
      }
      vstore4(acc1, wg_id, out);
    }
  }
}
