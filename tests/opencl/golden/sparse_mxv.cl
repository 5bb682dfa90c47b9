// prelude (every program starts with it)
#define NZ_FOR(i, n) for (long i = (long)get_global_id(0) * (long)(n) / (long)get_global_size(0), i##_end = ((long)get_global_id(0) + 1) * (long)(n) / (long)get_global_size(0); i < i##_end; i++)

#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF
#define NESSIE_ERR(code) atomic_min(err, (code))
inline int nz_tdiv_i(int a, int b) { return b == -1 ? (int)(0u - (uint)a) : a / b; }
inline long nz_tdiv_l(long a, long b) { return b == -1 ? (long)(0ul - (ulong)a) : a / b; }
inline int nz_rem_i(int a, int b) { return b == -1 ? 0 : a % b; }
inline long nz_rem_l(long a, long b) { return b == -1 ? 0 : a % b; }
inline int nz_mod_i(int a, int b) { int r = nz_rem_i(a, b); return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
inline long nz_mod_l(long a, long b) { long r = nz_rem_l(a, b); return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
inline int nz_ipow_i(int a, int e) { uint r = 1u, b = (uint)a; uint k = (uint)e;
  while (k) { if (k & 1u) r *= b; b *= b; k >>= 1; } return (int)r; }
inline long nz_ipow_l(long a, long e) { ulong r = 1ul, b = (ulong)a; ulong k = (ulong)e;
  while (k) { if (k & 1ul) r *= b; b *= b; k >>= 1; } return (long)r; }
inline int nz_negpow_i(int a, int e) { return a == 1 ? 1 : (a == -1 ? ((e % 2 == 0) ? 1 : -1) : 0); }
inline long nz_negpow_l(long a, long e) { return a == 1 ? 1 : (a == -1 ? ((e % 2 == 0) ? 1 : -1) : 0); }
inline int nz_f2i(double x) {
  if (!isfinite(x)) return (int)0x80000000u;
  double r = fmod(x, 4294967296.0);
  return (int)(uint)(ulong)(long)r; }
inline long nz_f2l(double x) {
  if (!isfinite(x)) return (long)0x8000000000000000ul;
  double r = fmod(x, 18446744073709551616.0);
  if (fabs(r) >= 9223372036854775808.0) r = r - copysign(18446744073709551616.0, r);
  /* out of range after the wrap: x86's conversion gives the smallest long (as numpy does);
     some devices saturate instead, so say it explicitly */
  if (!(fabs(r) < 9223372036854775808.0)) return (long)0x8000000000000000ul;
  return (long)r; }
inline long nz_isqrt(long x) {
  if (x < 0) return 0;
  long r = (long)floor(sqrt((double)x));
  if (r * r > x) r -= 1;
  if ((r + 1) * (r + 1) <= x) r += 1;
  return r; }
inline long nz_walk_ids(global const int* restrict offs, long count, long i, long* at) {
  /* the segment of element i (the last of count segments starting at or before it: empty
     segments are skipped as a segment-id vector skips them), searched from the segment found
     last: a few steps forward, else a binary search */
  long a = *at;
  if (a < 0 || (long)offs[a] > i) a = 0;
  int k = 0;
  while (a + 1 < count && (long)offs[a + 1] <= i) {
    if (++k > 8) {
      long lo = a + 1, hi = count - 1;
      while (lo < hi) { long mid = lo + (hi - lo + 1) / 2; if ((long)offs[mid] <= i) lo = mid; else hi = mid - 1; }
      a = lo;
      break;
    }
    a++;
  }
  *at = a;
  return a;
}
inline double nz_fmax(double a, double b) { return isnan(a) ? a : (a > b ? a : b); }
inline double nz_fmin(double a, double b) { return isnan(a) ? a : (a < b ? a : b); }
#define NZ_SEGCHUNKS(i, n, offs, cnt, s) for (long i = (long)get_global_id(0) * (long)(n) / (long)get_global_size(0), i##_end = ((long)get_global_id(0) + 1) * (long)(n) / (long)get_global_size(0), s = 0, s##_e = 0, s##_at = -1; i < i##_end && (s = nz_walk_ids((offs), (cnt), i, &s##_at), s##_e = s + 1 < (long)(cnt) ? min((long)(offs)[s + 1], i##_end) : i##_end, 1); )

// ===== λcu kernel KF1
kernel void v_KF1_0_chunks(
    global const int* restrict v_sd3_ids,
    long v_sd3_ids_n,
    global const int* restrict v_sd3_lengths,
    long v_sd3_lengths_n,
    global const int* restrict v_sd3_offsets,
    long v_sd3_offsets_n,
    global const double* restrict v_v0,
    long v_v0_n,
    global const int* restrict v_v1,
    long v_v1_n,
    global const double* restrict v_v2,
    long v_v2_n,
    global int* err,
    const int errbase,
    const long n,
    const long P,
    global double* restrict part0,
    global uchar* restrict pstart,
    global double* restrict out0)
{
  if (n <= 2147483647L && (long)(n) <= (long)(v_v1_n) && (long)(n) <= (long)(v_v2_n)) {
    const long c = get_global_id(0);
    if (c >= P) return;
    const long lo = c * n / P, hi = (c + 1) * n / P;
    double acc0;
    uchar started = 0;
    for (long i = lo, sg = 0, sg_e = 0, sg_at = -1; i < hi; ) {
      sg = nz_walk_ids(v_sd3_offsets, v_sd3_offsets_n, i, &sg_at);
      sg_e = min(hi, (long)v_sd3_offsets[sg] + v_sd3_lengths[sg]);
      for (; i < sg_e; i++) {
        int t1 = (int)v_v1[(int)i];
        double t2;
        if ((long)(t1) < 0 || (long)(t1) >= (long)(v_v0_n)) { NESSIE_ERR(errbase + 1); t2 = 0; } else t2 = (double)v_v0[t1];
        double t3 = (double)v_v2[(int)i];
        double t4 = (t3 * t2);
          if (i == (long)v_sd3_offsets[sg]) {
        double t5 = ((0.0) + t4);
        double t6 = t5;
        acc0 = t6;
            started = 1;
          } else if (i == lo) {
        double t7 = t4;
        acc0 = t7;
          } else {
        double t8 = (acc0 + t4);
        double t9 = t8;
        acc0 = t9;
          }
          if (started && i == (long)v_sd3_offsets[sg] + v_sd3_lengths[sg] - 1) {
            out0[sg] = acc0;
          }
      }
    }
    part0[c] = acc0;
    pstart[c] = started;
  } else {
    const long c = get_global_id(0);
    if (c >= P) return;
    const long lo = c * n / P, hi = (c + 1) * n / P;
    double acc0;
    uchar started = 0;
    for (long i = lo, sg = 0, sg_e = 0, sg_at = -1; i < hi; ) {
      sg = nz_walk_ids(v_sd3_offsets, v_sd3_offsets_n, i, &sg_at);
      sg_e = min(hi, (long)v_sd3_offsets[sg] + v_sd3_lengths[sg]);
      for (; i < sg_e; i++) {
        int t1;
        if ((long)((int)i) < 0 || (long)((int)i) >= (long)(v_v1_n)) { NESSIE_ERR(errbase + 0); t1 = 0; } else t1 = (int)v_v1[(int)i];
        double t2;
        if ((long)(t1) < 0 || (long)(t1) >= (long)(v_v0_n)) { NESSIE_ERR(errbase + 1); t2 = 0; } else t2 = (double)v_v0[t1];
        double t3;
        if ((long)((int)i) < 0 || (long)((int)i) >= (long)(v_v2_n)) { NESSIE_ERR(errbase + 2); t3 = 0; } else t3 = (double)v_v2[(int)i];
        double t4 = (t3 * t2);
          if (i == (long)v_sd3_offsets[sg]) {
        double t5 = ((0.0) + t4);
        double t6 = t5;
        acc0 = t6;
            started = 1;
          } else if (i == lo) {
        double t7 = t4;
        acc0 = t7;
          } else {
        double t8 = (acc0 + t4);
        double t9 = t8;
        acc0 = t9;
          }
          if (started && i == (long)v_sd3_offsets[sg] + v_sd3_lengths[sg] - 1) {
            out0[sg] = acc0;
          }
      }
    }
    part0[c] = acc0;
    pstart[c] = started;
  }
}

#pragma OPENCL EXTENSION cl_khr_fp64 : enable

double uf_v_KF1_0_init() {
  return (0.0);
}

double uf_v_KF1_0(double x1, double a0) {
  double t1 = (x1 * a0);
  return t1;
}

int v_KF1_0_lift_check(int i, int n, int site, global int* err) {
  if ((uint)i < (uint)n) return i;
  atomic_min(err, site);
  return 0;
}

double uf_v_KF1_0_op(double acc, double x) {
  double t1 = (acc + x);
  return t1;
}

double uf_v_KF1_0_id(double x) {
  return x;
}

kernel void v_KF1_0_lift(const global int* restrict v0, const global double* restrict v1, const global double* restrict v2, const global int* restrict offs, global double* out, int N, int L0, int M, global int* lift_err, const int lift_errbase) {
  if (get_global_id(0) < M - 1) {
    int gl_id = get_global_id(0);
    double v3 = uf_v_KF1_0_init();
    double acc1 = v3;
    for (int i = 0; i < offs[gl_id + 1] - offs[gl_id]; i += 1) {
      acc1 = uf_v_KF1_0_op(acc1, uf_v_KF1_0(v1[i + offs[gl_id]], v2[v_KF1_0_lift_check(v0[i + offs[gl_id]], L0, lift_errbase + 1, lift_err)]));
    }
    out[gl_id] = uf_v_KF1_0_id(acc1);
  }
}

kernel void v_KF1_0_carry(
    global const int* restrict v_sd3_ids,
    long v_sd3_ids_n,
    global const int* restrict v_sd3_lengths,
    long v_sd3_lengths_n,
    global const int* restrict v_sd3_offsets,
    long v_sd3_offsets_n,
    global const double* restrict v_v0,
    long v_v0_n,
    global const int* restrict v_v1,
    long v_v1_n,
    global const double* restrict v_v2,
    long v_v2_n,
    global int* err,
    const int errbase,
    const long P,
    global const double* restrict part0,
    global const uchar* restrict pstart,
    global double* restrict carry0)
{
  if (get_global_id(0) != 0) return;
  double acc0;
  double t1 = (0.0);
  acc0 = t1;
  for (long c = 0; c < P; c++) {
    carry0[c] = acc0;
    if (pstart[c]) {
  double t2 = part0[c];
  acc0 = t2;
    } else {
  double t3 = (acc0 + part0[c]);
  double t4 = t3;
  acc0 = t4;
    }
  }
}

kernel void v_KF1_0_scan(
    global const int* restrict v_sd3_ids,
    long v_sd3_ids_n,
    global const int* restrict v_sd3_lengths,
    long v_sd3_lengths_n,
    global const int* restrict v_sd3_offsets,
    long v_sd3_offsets_n,
    global const double* restrict v_v0,
    long v_v0_n,
    global const int* restrict v_v1,
    long v_v1_n,
    global const double* restrict v_v2,
    long v_v2_n,
    global int* err,
    const int errbase,
    const long n,
    const long P,
    global const double* restrict carry0,
    global double* restrict out0)
{
  if (n <= 2147483647L && (long)(n) <= (long)(v_v1_n) && (long)(n) <= (long)(v_v2_n)) {
    const long c = get_global_id(0);
    if (c >= P) return;
    const long lo = c * n / P, hi = (c + 1) * n / P;
    if (lo >= hi) return;
    long sg_at = -1;
    const long sg = nz_walk_ids(v_sd3_offsets, v_sd3_offsets_n, lo, &sg_at);
    if (lo == (long)v_sd3_offsets[sg]) return;
    if ((long)v_sd3_offsets[sg] + v_sd3_lengths[sg] > hi) return;
    double acc0;
    double t1 = carry0[c];
    acc0 = t1;
    for (long i = lo; i < hi; i++) {
    int t2 = (int)v_v1[(int)i];
    double t3;
    if ((long)(t2) < 0 || (long)(t2) >= (long)(v_v0_n)) { NESSIE_ERR(errbase + 1); t3 = 0; } else t3 = (double)v_v0[t2];
    double t4 = (double)v_v2[(int)i];
    double t5 = (t4 * t3);
    double t6 = (acc0 + t5);
    double t7 = t6;
    acc0 = t7;
      if (i == (long)v_sd3_offsets[sg] + v_sd3_lengths[sg] - 1) {
        out0[sg] = acc0;
        break;
      }
    }
  } else {
    const long c = get_global_id(0);
    if (c >= P) return;
    const long lo = c * n / P, hi = (c + 1) * n / P;
    if (lo >= hi) return;
    long sg_at = -1;
    const long sg = nz_walk_ids(v_sd3_offsets, v_sd3_offsets_n, lo, &sg_at);
    if (lo == (long)v_sd3_offsets[sg]) return;
    if ((long)v_sd3_offsets[sg] + v_sd3_lengths[sg] > hi) return;
    double acc0;
    double t1 = carry0[c];
    acc0 = t1;
    for (long i = lo; i < hi; i++) {
    int t2;
    if ((long)((int)i) < 0 || (long)((int)i) >= (long)(v_v1_n)) { NESSIE_ERR(errbase + 0); t2 = 0; } else t2 = (int)v_v1[(int)i];
    double t3;
    if ((long)(t2) < 0 || (long)(t2) >= (long)(v_v0_n)) { NESSIE_ERR(errbase + 1); t3 = 0; } else t3 = (double)v_v0[t2];
    double t4;
    if ((long)((int)i) < 0 || (long)((int)i) >= (long)(v_v2_n)) { NESSIE_ERR(errbase + 2); t4 = 0; } else t4 = (double)v_v2[(int)i];
    double t5 = (t4 * t3);
    double t6 = (acc0 + t5);
    double t7 = t6;
    acc0 = t7;
      if (i == (long)v_sd3_offsets[sg] + v_sd3_lengths[sg] - 1) {
        out0[sg] = acc0;
        break;
      }
    }
  }
}

kernel void v_KF1_0_init(
    global const int* restrict v_sd3_ids,
    long v_sd3_ids_n,
    global const int* restrict v_sd3_lengths,
    long v_sd3_lengths_n,
    global const int* restrict v_sd3_offsets,
    long v_sd3_offsets_n,
    global const double* restrict v_v0,
    long v_v0_n,
    global const int* restrict v_v1,
    long v_v1_n,
    global const double* restrict v_v2,
    long v_v2_n,
    global int* err,
    const int errbase,
    const long nseg,
    global double* restrict out0)
{
  NZ_FOR(s, nseg) {
    out0[s] = (0.0);
  }
}

kernel void v_KF1_0_rows(
    global const int* restrict v_sd3_ids,
    long v_sd3_ids_n,
    global const int* restrict v_sd3_lengths,
    long v_sd3_lengths_n,
    global const int* restrict v_sd3_offsets,
    long v_sd3_offsets_n,
    global const double* restrict v_v0,
    long v_v0_n,
    global const int* restrict v_v1,
    long v_v1_n,
    global const double* restrict v_v2,
    long v_v2_n,
    global int* err,
    const int errbase,
    const long nseg,
    const long n,
    global double* restrict out0)
{
  if (n <= 2147483647L && (long)(n) <= (long)(v_v1_n) && (long)(n) <= (long)(v_v2_n)) {
    NZ_FOR(s, nseg) {
      const long a = v_sd3_offsets[s], e = a + v_sd3_lengths[s];
    double acc0;
    double t1 = (0.0);
    acc0 = t1;
      if (a < e) {
        for (long i = a; i < e; i++) {
          int t2 = (int)v_v1[(int)i];
          double t3;
          if ((long)(t2) < 0 || (long)(t2) >= (long)(v_v0_n)) { NESSIE_ERR(errbase + 1); t3 = 0; } else t3 = (double)v_v0[t2];
          double t4 = (double)v_v2[(int)i];
          double t5 = (t4 * t3);
          double t6 = (acc0 + t5);
          double t7 = t6;
          acc0 = t7;
        }
      }
      out0[s] = acc0;
    }
  } else {
    NZ_FOR(s, nseg) {
      const long a = v_sd3_offsets[s], e = a + v_sd3_lengths[s];
    double acc0;
    double t1 = (0.0);
    acc0 = t1;
      if (a < e) {
        for (long i = a; i < e; i++) {
          int t2;
          if ((long)((int)i) < 0 || (long)((int)i) >= (long)(v_v1_n)) { NESSIE_ERR(errbase + 0); t2 = 0; } else t2 = (int)v_v1[(int)i];
          double t3;
          if ((long)(t2) < 0 || (long)(t2) >= (long)(v_v0_n)) { NESSIE_ERR(errbase + 1); t3 = 0; } else t3 = (double)v_v0[t2];
          double t4;
          if ((long)((int)i) < 0 || (long)((int)i) >= (long)(v_v2_n)) { NESSIE_ERR(errbase + 2); t4 = 0; } else t4 = (double)v_v2[(int)i];
          double t5 = (t4 * t3);
          double t6 = (acc0 + t5);
          double t7 = t6;
          acc0 = t7;
        }
      }
      out0[s] = acc0;
    }
  }
}

kernel void v_KF1_0_fold(
    global const int* restrict v_sd3_ids,
    long v_sd3_ids_n,
    global const int* restrict v_sd3_lengths,
    long v_sd3_lengths_n,
    global const int* restrict v_sd3_offsets,
    long v_sd3_offsets_n,
    global const double* restrict v_v0,
    long v_v0_n,
    global const int* restrict v_v1,
    long v_v1_n,
    global const double* restrict v_v2,
    long v_v2_n,
    global int* err,
    const int errbase,
    const long P,
    const long P2,
    global const double* restrict part0,
    global const uchar* restrict pstart,
    global double* restrict part2_0,
    global uchar* restrict pstart2)
{
  const long c2 = get_group_id(0);
  const int t = get_local_id(0), W = get_local_size(0);
  const long lo = c2 * P / P2, hi = (c2 + 1) * P / P2;
  local double lp0[256];
  local uchar lst[256];
  double acc0;
  uchar started = 0;
  for (long base = lo; base < hi; base += W) {
    if (base + t < hi) {
      lp0[t] = part0[base + t];
      lst[t] = pstart[base + t];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t == 0) {
      const int m = (int)min((long)W, hi - base);
      for (int k = 0; k < m; k++) {
        if (base + k == lo) {
  double t1 = lp0[k];
  acc0 = t1;
          started = lst[k];
        } else if (lst[k]) {
  double t2 = lp0[k];
  acc0 = t2;
          started = 1;
        } else {
  double t3 = (acc0 + lp0[k]);
  double t4 = t3;
  acc0 = t4;
        }
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) {
    part2_0[c2] = acc0;
    pstart2[c2] = started;
  }
}

kernel void v_KF1_0_spread(
    global const int* restrict v_sd3_ids,
    long v_sd3_ids_n,
    global const int* restrict v_sd3_lengths,
    long v_sd3_lengths_n,
    global const int* restrict v_sd3_offsets,
    long v_sd3_offsets_n,
    global const double* restrict v_v0,
    long v_v0_n,
    global const int* restrict v_v1,
    long v_v1_n,
    global const double* restrict v_v2,
    long v_v2_n,
    global int* err,
    const int errbase,
    const long P,
    const long P2,
    global const double* restrict part0,
    global const uchar* restrict pstart,
    global const double* restrict carry2_0,
    global double* restrict carry0)
{
  const long c2 = get_group_id(0);
  const int t = get_local_id(0), W = get_local_size(0);
  const long lo = c2 * P / P2, hi = (c2 + 1) * P / P2;
  local double lp0[256];
  local uchar lst[256];
  double acc0;
  double t1 = carry2_0[c2];
  acc0 = t1;
  for (long base = lo; base < hi; base += W) {
    if (base + t < hi) {
      lp0[t] = part0[base + t];
      lst[t] = pstart[base + t];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t == 0) {
      const int m = (int)min((long)W, hi - base);
      for (int k = 0; k < m; k++) {
  double t2 = lp0[k];
        lp0[k] = acc0;
        if (lst[k]) {
  double t3 = t2;
  acc0 = t3;
        } else {
  double t4 = (acc0 + t2);
  double t5 = t4;
  acc0 = t5;
        }
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (base + t < hi) {
      carry0[base + t] = lp0[t];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
