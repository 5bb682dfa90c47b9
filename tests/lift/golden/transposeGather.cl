float id(float x) {
  return x;
}

kernel void transposeGather(const global float* restrict x, global float* out, int M, int N) {
  for (int wg_id = get_group_id(0); wg_id < M; wg_id += get_num_groups(0)) {
    for (int l_id = get_local_id(0); l_id < N; l_id += get_local_size(0)) {
      out[l_id + N * wg_id] = id(x[wg_id + M * l_id]);
    }
  }
}
