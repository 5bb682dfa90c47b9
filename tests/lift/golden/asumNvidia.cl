float absAndSumUp(float acc, float x) {
  return acc + fabs(x);
}

float add(float a, float b) {
  return a + b;
}

float id(float x) {
  return x;
}

kernel void asumNvidia(const global float* restrict x, global float* out, int N) {
  local float tmp1[128];
  local float tmp2[64];
  for (int wg_id = get_group_id(0); wg_id < N / 262144; wg_id += get_num_groups(0)) {
    {
      int l_id = get_local_id(0);
      float acc1 = 0.0f;
      for (int i = 0; i < 2048; i += 1) {
        acc1 = absAndSumUp(acc1, x[128 * i + l_id + 262144 * wg_id]);
      }
      tmp1[l_id] = acc1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    int size = 128;
    local float* src1 = tmp1;
    local float* dst1 = tmp2;
    for (int iter = 0; iter < 7; iter += 1) {
      if (get_local_id(0) < size / 2) {
        int l_id = get_local_id(0);
        float acc2 = 0.0f;
        for (int i = 0; i < 2; i += 1) {
          acc2 = add(acc2, src1[i + 2 * l_id]);
        }
        dst1[l_id] = acc2;
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
