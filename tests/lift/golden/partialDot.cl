float multAndSumUp(float acc, float xy_0, float xy_1) {
  return acc + xy_0 * xy_1;
}

float id(float x) {
  return x;
}

float add(float a, float b) {
  return a + b;
}

kernel void partialDot(const global float* restrict x, const global float* restrict y, global float* out, int N) {
  local float tmp1[64];
  local float tmp2[32];
  for (int wg_id = get_group_id(0); wg_id < N / 128; wg_id += get_num_groups(0)) {
    {
      int l_id = get_local_id(0);
      float acc1 = 0.0f;
      for (int i = 0; i < 2; i += 1) {
        acc1 = multAndSumUp(acc1, x[i + 2 * l_id + 128 * wg_id], y[i + 2 * l_id + 128 * wg_id]);
      }
      tmp1[l_id] = id(acc1);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    int size = 64;
    local float* src1 = tmp1;
    local float* dst1 = tmp2;
    for (int iter = 0; iter < 6; iter += 1) {
      if (get_local_id(0) < size / 2) {
        int l_id = get_local_id(0);
        float acc2 = 0.0f;
        for (int i = 0; i < 2; i += 1) {
          acc2 = add(acc2, src1[i + 2 * l_id]);
        }
        dst1[l_id] = id(acc2);
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      size = size / 2;
      local float* swap = src1;
      src1 = dst1;
      dst1 = swap;
    }
    if (get_local_id(0) < 1) {
      int l_id = get_local_id(0);
      out[wg_id] = id(src1[0]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
