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

// ===== λcu kernel KF2
kernel void v_KF2_0_chunks(
    const int v_n2_0,
    global const double* restrict v_v0,
    long v_v0_n,
    global const double* restrict v_v1,
    long v_v1_n,
    global int* err,
    const int errbase,
    const long n,
    const long P,
    global double* restrict part0)
{
  if (n <= 2147483647L && (long)(n) <= (long)(v_v0_n) && (long)(n) <= (long)(v_v1_n)) {
    const long c = get_global_id(0);
    if (c >= P) return;
    const long lo = c * n / P, hi = (c + 1) * n / P;
    double acc0;
    if (lo < hi) {
      const long i = lo;
    double t1 = (double)v_v0[(int)i];
    double t2 = (double)v_v1[(int)i];
    double t3 = (t1 * t2);
    double t4 = t3;
    acc0 = t4;
    }
    for (long i = lo + 1; i < hi; i++) {
    double t5 = (double)v_v0[(int)i];
    double t6 = (double)v_v1[(int)i];
    double t7 = (t5 * t6);
    double t8 = (acc0 + t7);
    double t9 = t8;
    acc0 = t9;
    }
    part0[c] = acc0;
  } else {
    const long c = get_global_id(0);
    if (c >= P) return;
    const long lo = c * n / P, hi = (c + 1) * n / P;
    double acc0;
    if (lo < hi) {
      const long i = lo;
    double t1;
    if ((long)((int)i) < 0 || (long)((int)i) >= (long)(v_v0_n)) { NESSIE_ERR(errbase + 0); t1 = 0; } else t1 = (double)v_v0[(int)i];
    double t2;
    if ((long)((int)i) < 0 || (long)((int)i) >= (long)(v_v1_n)) { NESSIE_ERR(errbase + 1); t2 = 0; } else t2 = (double)v_v1[(int)i];
    double t3 = (t1 * t2);
    double t4 = t3;
    acc0 = t4;
    }
    for (long i = lo + 1; i < hi; i++) {
    double t5;
    if ((long)((int)i) < 0 || (long)((int)i) >= (long)(v_v0_n)) { NESSIE_ERR(errbase + 0); t5 = 0; } else t5 = (double)v_v0[(int)i];
    double t6;
    if ((long)((int)i) < 0 || (long)((int)i) >= (long)(v_v1_n)) { NESSIE_ERR(errbase + 1); t6 = 0; } else t6 = (double)v_v1[(int)i];
    double t7 = (t5 * t6);
    double t8 = (acc0 + t7);
    double t9 = t8;
    acc0 = t9;
    }
    part0[c] = acc0;
  }
}

#pragma OPENCL EXTENSION cl_khr_fp64 : enable

double uf_v_KF2_0_init() {
  return (0.0);
}

double uf_v_KF2_0(double x0, double x1) {
  double t1 = (x0 * x1);
  return t1;
}

double uf_v_KF2_0_op(double acc, double x) {
  double t1 = (acc + x);
  return t1;
}

double uf_v_KF2_0_id(double x) {
  return x;
}

kernel void v_KF2_0_lift(const global double* restrict v0, const global double* restrict v1, global double* out, int N, int P) {
  {
    int gl_id = get_global_id(0);
    double v2 = uf_v_KF2_0_init();
    double acc1 = v2;
    for (int i = 0; i < (int)((((long)N) + ((long)N) * ((long)gl_id)) / ((long)P) - ((long)N) * ((long)gl_id) / ((long)P)); i += 1) {
      acc1 = uf_v_KF2_0_op(acc1, uf_v_KF2_0(v0[(int)(((long)i) + ((long)N) * ((long)gl_id) / ((long)P))], v1[(int)(((long)i) + ((long)N) * ((long)gl_id) / ((long)P))]));
    }
    out[gl_id] = uf_v_KF2_0_id(acc1);
  }
}

#pragma OPENCL EXTENSION cl_khr_fp64 : enable

double uf_v_KF2_0_c_init() {
  return (0.0);
}

double uf_v_KF2_0_c_op(double acc, double x) {
  double t1 = (acc + x);
  return t1;
}

double uf_v_KF2_0_c_id(double x) {
  return x;
}

kernel void v_KF2_0_liftcarry(const global double* restrict parts0, global double* out, int P) {
  {
    int gl_id = get_global_id(0);
    double v1 = uf_v_KF2_0_c_init();
    double acc1 = v1;
    for (int i = 0; i < P; i += 1) {
      acc1 = uf_v_KF2_0_c_op(acc1, parts0[i]);
    }
    out[0] = uf_v_KF2_0_c_id(acc1);
  }
}

kernel void v_KF2_0_carry(
    const int v_n2_0,
    global const double* restrict v_v0,
    long v_v0_n,
    global const double* restrict v_v1,
    long v_v1_n,
    global int* err,
    const int errbase,
    const long P,
    global const double* restrict part0,
    global double* restrict out0)
{
  if (get_global_id(0) != 0) return;
  double acc0;
  double t1 = (0.0);
  acc0 = t1;
  for (long c = 0; c < P; c++) {
  double t2 = (acc0 + part0[c]);
  double t3 = t2;
  acc0 = t3;
  }
  out0[0] = acc0;
}

kernel void v_KF2_0_strided(
    const int v_n2_0,
    global const double* restrict v_v0,
    long v_v0_n,
    global const double* restrict v_v1,
    long v_v1_n,
    global int* err,
    const int errbase,
    const long n,
    const long P,
    global double* restrict part0)
{
  if (n <= 2147483647L && (long)(n) <= (long)(v_v0_n) && (long)(n) <= (long)(v_v1_n)) {
    const long c = get_global_id(0);
    if (c >= P) return;
    double acc0;
    double t1;
    if ((long)((int)c) < 0 || (long)((int)c) >= (long)(v_v0_n)) { NESSIE_ERR(errbase + 0); t1 = 0; } else t1 = (double)v_v0[(int)c];
    double t2;
    if ((long)((int)c) < 0 || (long)((int)c) >= (long)(v_v1_n)) { NESSIE_ERR(errbase + 1); t2 = 0; } else t2 = (double)v_v1[(int)c];
    double t3 = (t1 * t2);
    double t4 = t3;
    acc0 = t4;
    for (long i = c + P; i < n; i += P) {
    double t5 = (double)v_v0[(int)i];
    double t6 = (double)v_v1[(int)i];
    double t7 = (t5 * t6);
    double t8 = (acc0 + t7);
    double t9 = t8;
    acc0 = t9;
    }
    part0[c] = acc0;
  } else {
    const long c = get_global_id(0);
    if (c >= P) return;
    double acc0;
    double t1;
    if ((long)((int)c) < 0 || (long)((int)c) >= (long)(v_v0_n)) { NESSIE_ERR(errbase + 0); t1 = 0; } else t1 = (double)v_v0[(int)c];
    double t2;
    if ((long)((int)c) < 0 || (long)((int)c) >= (long)(v_v1_n)) { NESSIE_ERR(errbase + 1); t2 = 0; } else t2 = (double)v_v1[(int)c];
    double t3 = (t1 * t2);
    double t4 = t3;
    acc0 = t4;
    for (long i = c + P; i < n; i += P) {
    double t5;
    if ((long)((int)i) < 0 || (long)((int)i) >= (long)(v_v0_n)) { NESSIE_ERR(errbase + 0); t5 = 0; } else t5 = (double)v_v0[(int)i];
    double t6;
    if ((long)((int)i) < 0 || (long)((int)i) >= (long)(v_v1_n)) { NESSIE_ERR(errbase + 1); t6 = 0; } else t6 = (double)v_v1[(int)i];
    double t7 = (t5 * t6);
    double t8 = (acc0 + t7);
    double t9 = t8;
    acc0 = t9;
    }
    part0[c] = acc0;
  }
}

kernel void v_KF2_0_folds(
    const int v_n2_0,
    global const double* restrict v_v0,
    long v_v0_n,
    global const double* restrict v_v1,
    long v_v1_n,
    global int* err,
    const int errbase,
    const long P,
    const long P2,
    global const double* restrict part0,
    global double* restrict part2_0)
{
  const long c2 = get_global_id(0);
  if (c2 >= P2) return;
  double acc0;
  double t1 = part0[c2];
  acc0 = t1;
  for (long c = c2 + P2; c < P; c += P2) {
  double t2 = (acc0 + part0[c]);
  double t3 = t2;
  acc0 = t3;
  }
  part2_0[c2] = acc0;
}

kernel void v_KF2_0_fold(
    const int v_n2_0,
    global const double* restrict v_v0,
    long v_v0_n,
    global const double* restrict v_v1,
    long v_v1_n,
    global int* err,
    const int errbase,
    const long P,
    const long P2,
    global const double* restrict part0,
    global double* restrict part2_0)
{
  const long c2 = get_group_id(0);
  const int t = get_local_id(0), W = get_local_size(0);
  const long lo = c2 * P / P2, hi = (c2 + 1) * P / P2;
  local double lp0[256];
  double acc0;
  for (long base = lo; base < hi; base += W) {
    if (base + t < hi) {
      lp0[t] = part0[base + t];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t == 0) {
      const int m = (int)min((long)W, hi - base);
      for (int k = 0; k < m; k++) {
        if (base + k == lo) {
  double t1 = lp0[k];
  acc0 = t1;
        } else {
  double t2 = (acc0 + lp0[k]);
  double t3 = t2;
  acc0 = t3;
        }
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) {
    part2_0[c2] = acc0;
  }
}
