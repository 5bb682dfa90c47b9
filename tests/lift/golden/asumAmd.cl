float4 absAndSumUp_float4(float4 acc, float4 x) {
  return acc + fabs(x);
}

float4 add_float4(float4 a, float4 b) {
  return a + b;
}

float4 id(float4 x) {
  return x;
}

kernel void asumAmd(const global float* restrict x, global float* out, int N) {
  local float tmp1[1024];
  local float tmp2[512];
  for (int wg_id = get_group_id(0); wg_id < N / 2048; wg_id += get_num_groups(0)) {
    {
      int l_id = get_local_id(0);
      float4 acc1 = (float4)(0.0f);
      for (int i = 0; i < 2; i += 1) {
        acc1 = absAndSumUp_float4(acc1, vload4(256 * i + l_id + 512 * wg_id, x));
      }
      vstore4(acc1, l_id, tmp1);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    int size = 256;
    local float* src1 = tmp1;
    local float* dst1 = tmp2;
    for (int iter = 0; iter < 8; iter += 1) {
      if (get_local_id(0) < size / 2) {
        int l_id = get_local_id(0);
        float4 acc2 = (float4)(0.0f);
        for (int i = 0; i < 2; i += 1) {
          acc2 = add_float4(acc2, vload4(i + 2 * l_id, src1));
        }
        vstore4(acc2, l_id, dst1);
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      size = size / 2;
      local float* swap = src1;
      src1 = dst1;
      dst1 = swap;
    }
    if (get_local_id(0) < 1) {
      int l_id = get_local_id(0);
      vstore4(id(vload4(0, src1)), wg_id, out);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
