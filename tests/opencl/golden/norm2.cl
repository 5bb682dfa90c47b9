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
    global const int* restrict v_v0,
    long v_v0_n,
    global int* err,
    const int errbase,
    const long n,
    const long P,
    global int* restrict part0,
    global int* restrict part1)
{
  if (n <= 2147483647L && (long)(n) <= (long)(v_v0_n)) {
    const long c = get_global_id(0);
    if (c >= P) return;
    const long lo = c * n / P, hi = (c + 1) * n / P;
    int acc0;
    int acc1;
    if (lo < hi) {
      const long i = lo;
    int t1 = (int)v_v0[(int)i];
    uchar t2 = (uchar)(t1 > ((int)0));
    int t3;
    if (t2) {
      t3 = t1;
    } else {
      t3 = ((int)0);
    }
    int t4 = t1;
    int t5 = t3;
    acc0 = t4;
    acc1 = t5;
    }
    for (long i = lo + 1; i < hi; i++) {
    int t6 = (int)v_v0[(int)i];
    uchar t7 = (uchar)(t6 > ((int)0));
    int t8;
    if (t7) {
      t8 = t6;
    } else {
      t8 = ((int)0);
    }
    int t9 = (int)((uint)acc0 + (uint)t6);
    int t10 = (int)((uint)acc1 + (uint)t8);
    int t11 = t9;
    int t12 = t10;
    acc0 = t11;
    acc1 = t12;
    }
    part0[c] = acc0;
    part1[c] = acc1;
  } else {
    const long c = get_global_id(0);
    if (c >= P) return;
    const long lo = c * n / P, hi = (c + 1) * n / P;
    int acc0;
    int acc1;
    if (lo < hi) {
      const long i = lo;
    int t1;
    if ((long)((int)i) < 0 || (long)((int)i) >= (long)(v_v0_n)) { NESSIE_ERR(errbase + 0); t1 = 0; } else t1 = (int)v_v0[(int)i];
    uchar t2 = (uchar)(t1 > ((int)0));
    int t3;
    if (t2) {
      t3 = t1;
    } else {
      t3 = ((int)0);
    }
    int t4 = t1;
    int t5 = t3;
    acc0 = t4;
    acc1 = t5;
    }
    for (long i = lo + 1; i < hi; i++) {
    int t6;
    if ((long)((int)i) < 0 || (long)((int)i) >= (long)(v_v0_n)) { NESSIE_ERR(errbase + 0); t6 = 0; } else t6 = (int)v_v0[(int)i];
    uchar t7 = (uchar)(t6 > ((int)0));
    int t8;
    if (t7) {
      t8 = t6;
    } else {
      t8 = ((int)0);
    }
    int t9 = (int)((uint)acc0 + (uint)t6);
    int t10 = (int)((uint)acc1 + (uint)t8);
    int t11 = t9;
    int t12 = t10;
    acc0 = t11;
    acc1 = t12;
    }
    part0[c] = acc0;
    part1[c] = acc1;
  }
}

#ifndef LIFT_Tuple_int_int
#define LIFT_Tuple_int_int
typedef struct { int _0; int _1; } Tuple_int_int;
#endif

Tuple_int_int uf_v_KF1_0_init() {
  return (Tuple_int_int){((int)0), ((int)0)};
}

Tuple_int_int uf_v_KF1_0(int x0) {
  uchar t1 = (uchar)(x0 > ((int)0));
  int t2;
  if (t1) {
  t2 = x0;
  } else {
  t2 = ((int)0);
  }
  return (Tuple_int_int){x0, t2};
}

Tuple_int_int uf_v_KF1_0_op(int acc_0, int acc_1, int x_0, int x_1) {
  int t1 = (int)((uint)acc_0 + (uint)x_0);
  int t2 = (int)((uint)acc_1 + (uint)x_1);
  return (Tuple_int_int){t1, t2};
}

Tuple_int_int uf_v_KF1_0_id(Tuple_int_int x) {
  return x;
}

kernel void v_KF1_0_lift(const global int* restrict v0, global int* out0, global int* out1, int N, int P) {
  {
    int gl_id = get_global_id(0);
    Tuple_int_int v1 = uf_v_KF1_0_init();
    Tuple_int_int acc1 = v1;
    for (int i = 0; i < (int)((((long)N) + ((long)N) * ((long)gl_id)) / ((long)P) - ((long)N) * ((long)gl_id) / ((long)P)); i += 1) {
      Tuple_int_int v2 = uf_v_KF1_0(v0[(int)(((long)i) + ((long)N) * ((long)gl_id) / ((long)P))]);
      acc1 = uf_v_KF1_0_op(acc1._0, acc1._1, v2._0, v2._1);
    }
    Tuple_int_int tup = uf_v_KF1_0_id(acc1);
    out0[gl_id] = tup._0;
    out1[gl_id] = tup._1;
  }
}

#ifndef LIFT_Tuple_int_int
#define LIFT_Tuple_int_int
typedef struct { int _0; int _1; } Tuple_int_int;
#endif

Tuple_int_int uf_v_KF1_0_c_init() {
  return (Tuple_int_int){((int)0), ((int)0)};
}

Tuple_int_int uf_v_KF1_0_c_op(int acc_0, int acc_1, int x_0, int x_1) {
  int t1 = (int)((uint)acc_0 + (uint)x_0);
  int t2 = (int)((uint)acc_1 + (uint)x_1);
  return (Tuple_int_int){t1, t2};
}

Tuple_int_int uf_v_KF1_0_c_id(Tuple_int_int x) {
  return x;
}

kernel void v_KF1_0_liftcarry(const global int* restrict parts0, const global int* restrict parts1, global int* out0, global int* out1, int P) {
  {
    int gl_id = get_global_id(0);
    Tuple_int_int v1 = uf_v_KF1_0_c_init();
    Tuple_int_int acc1 = v1;
    for (int i = 0; i < P; i += 1) {
      acc1 = uf_v_KF1_0_c_op(acc1._0, acc1._1, parts0[i], parts1[i]);
    }
    Tuple_int_int tup = uf_v_KF1_0_c_id(acc1);
    out0[0] = tup._0;
    out1[0] = tup._1;
  }
}

kernel void v_KF1_0_carry(
    global const int* restrict v_v0,
    long v_v0_n,
    global int* err,
    const int errbase,
    const long P,
    global const int* restrict part0,
    global const int* restrict part1,
    global int* restrict out0,
    global int* restrict out1)
{
  if (get_global_id(0) != 0) return;
  int acc0;
  int acc1;
  int t1 = ((int)0);
  int t2 = ((int)0);
  acc0 = t1;
  acc1 = t2;
  for (long c = 0; c < P; c++) {
  int t3 = (int)((uint)acc0 + (uint)part0[c]);
  int t4 = (int)((uint)acc1 + (uint)part1[c]);
  int t5 = t3;
  int t6 = t4;
  acc0 = t5;
  acc1 = t6;
  }
  out0[0] = acc0;
  out1[0] = acc1;
}

kernel void v_KF1_0_strided(
    global const int* restrict v_v0,
    long v_v0_n,
    global int* err,
    const int errbase,
    const long n,
    const long P,
    global int* restrict part0,
    global int* restrict part1)
{
  if (n <= 2147483647L && (long)(n) <= (long)(v_v0_n)) {
    const long c = get_global_id(0);
    if (c >= P) return;
    int acc0;
    int acc1;
    int t1;
    if ((long)((int)c) < 0 || (long)((int)c) >= (long)(v_v0_n)) { NESSIE_ERR(errbase + 0); t1 = 0; } else t1 = (int)v_v0[(int)c];
    uchar t2 = (uchar)(t1 > ((int)0));
    int t3;
    if (t2) {
      t3 = t1;
    } else {
      t3 = ((int)0);
    }
    int t4 = t1;
    int t5 = t3;
    acc0 = t4;
    acc1 = t5;
    for (long i = c + P; i < n; i += P) {
    int t6 = (int)v_v0[(int)i];
    uchar t7 = (uchar)(t6 > ((int)0));
    int t8;
    if (t7) {
      t8 = t6;
    } else {
      t8 = ((int)0);
    }
    int t9 = (int)((uint)acc0 + (uint)t6);
    int t10 = (int)((uint)acc1 + (uint)t8);
    int t11 = t9;
    int t12 = t10;
    acc0 = t11;
    acc1 = t12;
    }
    part0[c] = acc0;
    part1[c] = acc1;
  } else {
    const long c = get_global_id(0);
    if (c >= P) return;
    int acc0;
    int acc1;
    int t1;
    if ((long)((int)c) < 0 || (long)((int)c) >= (long)(v_v0_n)) { NESSIE_ERR(errbase + 0); t1 = 0; } else t1 = (int)v_v0[(int)c];
    uchar t2 = (uchar)(t1 > ((int)0));
    int t3;
    if (t2) {
      t3 = t1;
    } else {
      t3 = ((int)0);
    }
    int t4 = t1;
    int t5 = t3;
    acc0 = t4;
    acc1 = t5;
    for (long i = c + P; i < n; i += P) {
    int t6;
    if ((long)((int)i) < 0 || (long)((int)i) >= (long)(v_v0_n)) { NESSIE_ERR(errbase + 0); t6 = 0; } else t6 = (int)v_v0[(int)i];
    uchar t7 = (uchar)(t6 > ((int)0));
    int t8;
    if (t7) {
      t8 = t6;
    } else {
      t8 = ((int)0);
    }
    int t9 = (int)((uint)acc0 + (uint)t6);
    int t10 = (int)((uint)acc1 + (uint)t8);
    int t11 = t9;
    int t12 = t10;
    acc0 = t11;
    acc1 = t12;
    }
    part0[c] = acc0;
    part1[c] = acc1;
  }
}

kernel void v_KF1_0_folds(
    global const int* restrict v_v0,
    long v_v0_n,
    global int* err,
    const int errbase,
    const long P,
    const long P2,
    global const int* restrict part0,
    global const int* restrict part1,
    global int* restrict part2_0,
    global int* restrict part2_1)
{
  const long c2 = get_global_id(0);
  if (c2 >= P2) return;
  int acc0;
  int acc1;
  int t1 = part0[c2];
  int t2 = part1[c2];
  acc0 = t1;
  acc1 = t2;
  for (long c = c2 + P2; c < P; c += P2) {
  int t3 = (int)((uint)acc0 + (uint)part0[c]);
  int t4 = (int)((uint)acc1 + (uint)part1[c]);
  int t5 = t3;
  int t6 = t4;
  acc0 = t5;
  acc1 = t6;
  }
  part2_0[c2] = acc0;
  part2_1[c2] = acc1;
}

kernel void v_KF1_0_fold(
    global const int* restrict v_v0,
    long v_v0_n,
    global int* err,
    const int errbase,
    const long P,
    const long P2,
    global const int* restrict part0,
    global const int* restrict part1,
    global int* restrict part2_0,
    global int* restrict part2_1)
{
  const long c2 = get_group_id(0);
  const int t = get_local_id(0), W = get_local_size(0);
  const long lo = c2 * P / P2, hi = (c2 + 1) * P / P2;
  local int lp0[256];
  local int lp1[256];
  int acc0;
  int acc1;
  for (long base = lo; base < hi; base += W) {
    if (base + t < hi) {
      lp0[t] = part0[base + t];
      lp1[t] = part1[base + t];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t == 0) {
      const int m = (int)min((long)W, hi - base);
      for (int k = 0; k < m; k++) {
        if (base + k == lo) {
  int t1 = lp0[k];
  int t2 = lp1[k];
  acc0 = t1;
  acc1 = t2;
        } else {
  int t3 = (int)((uint)acc0 + (uint)lp0[k]);
  int t4 = (int)((uint)acc1 + (uint)lp1[k]);
  int t5 = t3;
  int t6 = t4;
  acc0 = t5;
  acc1 = t6;
        }
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) {
    part2_0[c2] = acc0;
    part2_1[c2] = acc1;
  }
}

// ===== λcu kernel KF2
kernel void v_KF2_0_map(
    global const int* restrict v_n1_0_p,
    const int v_n2_0,
    global const int* restrict v_n3_0_p,
    global const int* restrict v_v0,
    long v_v0_n,
    global int* err,
    const int errbase,
    const long n,
    global int* restrict out0,
    global int* restrict out1)
{
  const int v_n1_0 = v_n1_0_p[0];
  const int v_n3_0 = v_n3_0_p[0];
  if (n <= 2147483647L && (long)(n) <= (long)(v_v0_n)) {
    int nz_err = INT_MAX;
    NZ_FOR(i, n) {
    int t1 = (int)v_v0[(int)i];
    int t2 = v_n1_0;
    if (t2 == 0) { nz_err = min(nz_err, errbase + 1); t2 = 1; }
    int t3 = nz_tdiv_i(t1, t2);
    int t4 = v_n3_0;
    if (t4 == 0) { nz_err = min(nz_err, errbase + 2); t4 = 1; }
    int t5 = nz_tdiv_i(t1, t4);
      out0[i] = t3;
      out1[i] = t5;
    }
    if (nz_err != INT_MAX) atomic_min(err, nz_err);
  } else {
    int nz_err = INT_MAX;
    NZ_FOR(i, n) {
    int t1;
    if ((long)((int)i) < 0 || (long)((int)i) >= (long)(v_v0_n)) { nz_err = min(nz_err, errbase + 0); t1 = 0; } else t1 = (int)v_v0[(int)i];
    int t2 = v_n1_0;
    if (t2 == 0) { nz_err = min(nz_err, errbase + 1); t2 = 1; }
    int t3 = nz_tdiv_i(t1, t2);
    int t4 = v_n3_0;
    if (t4 == 0) { nz_err = min(nz_err, errbase + 2); t4 = 1; }
    int t5 = nz_tdiv_i(t1, t4);
      out0[i] = t3;
      out1[i] = t5;
    }
    if (nz_err != INT_MAX) atomic_min(err, nz_err);
  }
}

#ifndef LIFT_Tuple_int_int_uchar_uchar
#define LIFT_Tuple_int_int_uchar_uchar
typedef struct { int _0; int _1; uchar _2; uchar _3; } Tuple_int_int_uchar_uchar;
#endif

#ifndef LIFT_Tuple_int_int
#define LIFT_Tuple_int_int
typedef struct { int _0; int _1; } Tuple_int_int;
#endif

Tuple_int_int_uchar_uchar uf_v_KF2_0_raw(int x0, int s0, int s1) {
  uchar nzf0 = 0;
  uchar nzf1 = 0;
  int t1 = s0;
  if (t1 == 0) { nzf0 = 1; t1 = 1; }
  int t2 = nz_tdiv_i(x0, t1);
  int t3 = s1;
  if (t3 == 0) { nzf1 = 1; t3 = 1; }
  int t4 = nz_tdiv_i(x0, t3);
  return (Tuple_int_int_uchar_uchar){t2, t4, nzf0, nzf1};
}

Tuple_int_int_uchar_uchar uf_v_KF2_0(int x0, int s0, int s1) {
  Tuple_int_int_uchar_uchar r = uf_v_KF2_0_raw(x0, s0, s1);
  r._2 = (uchar)(r._2 != 0);
  r._3 = (uchar)(r._3 != 0);
  return r;
}

Tuple_int_int uf_v_KF2_0_out(int r0, int r1) {
  return (Tuple_int_int){r0, r1};
}

int v_KF2_0_lift_check_fail(int c, int site, global int* err) {
  if (c) atomic_min(err, site);
  return 0;
}

kernel void v_KF2_0_lift(const global int* restrict v0, const global int* restrict s0, const global int* restrict s1, global int* out0, global int* out1, int N, global int* lift_err, const int lift_errbase) {
  if (get_global_id(0) < N) {
    int gl_id = get_global_id(0);
    Tuple_int_int_uchar_uchar v1 = uf_v_KF2_0(v0[gl_id], s0[0], s1[0]);
    Tuple_int_int tup = uf_v_KF2_0_out((v_KF2_0_lift_check_fail(v1._2 != 0, lift_errbase + 1, lift_err), (v_KF2_0_lift_check_fail(v1._3 != 0, lift_errbase + 2, lift_err), v1._0)), v1._1);
    out0[gl_id] = tup._0;
    out1[gl_id] = tup._1;
  }
}
