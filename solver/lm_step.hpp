// The linear algebra of one LM step: the damped normal equations (J^T J + lambda D) dq = -g,
// g = J^T r, of one batch row, formed and solved using the structure of the rows.
//
// Rows come in two sorts. Diagonal rows (posture of 1-dof, planar and free-translation dofs,
// joint limits) have their one non-zero at a column known from the objective; general rows
// (task objectives, centre of mass, custom rows, ball rotations of a posture) fill the columns
// of their chain. Two ways to solve, chosen per problem (lm_resolve_step):
//   dense      A = J^T J (nv x nv) summed over each row's non-zero columns only, so a hand's rows
//              cost its chain and a posture row one product; dense Cholesky of A + lambda D, or
//              on a branched robot whose rows each move one chain the tree factor (tree_factor),
//              which takes no fill-in. The plain dense product up to the sign of a zero (the
//              same terms in the same order).
//   row space  the diagonal rows and the damping make a diagonal M; the m general rows G enter
//              through Woodbury, (M + G^T G)^-1 = M^-1 - M^-1 G^T (I + G M^-1 G^T)^-1 G M^-1:
//              an m x m Cholesky and O(m^2 nv) work instead of O(nv^3): a 5000-joint chain with
//              a pose target (m = 6) takes a step in well under a millisecond, where a dense
//              5000 x 5000 Cholesky alone is about 2e10 multiply-adds.
// Equal to rounding (tests/solver/lm_step_test.cpp states the tolerance).
//
// __host__ __device__, float and double, raw pointers only: the CPU backend and the CUDA
// kernels run the same step.
#pragma once

#include <cstdint>
#include <type_traits>

#include "solver/objectives.hpp"

namespace ikwb {

// How the LM step solves its normal equations.
enum class LmStep : int8_t {
  kAuto,      // by problem size (lm_resolve_step)
  kDense,     // nv x nv normal matrix from each row's non-zero columns, dense Cholesky
  kRowSpace,  // diagonal rows on the diagonal, the general rows through an m x m system
};

// A matrix size known at compile time: the loops below take it in place of an int, and the
// compiler unrolls them (the same operations in the same order, so the same results).
template <int N>
struct FixedSize {
  IKWB_HD constexpr operator int() const { return N; }
};

// In-place factor L D L^T of the n x n SPD matrix L (lower triangle used; L unit lower
// triangular); false if not SPD. The diagonal keeps 1 / D(j, j), so cholesky_solve multiplies
// where it would divide. Without the square roots of the Cholesky factor L L^T: each column
// waits on the one before through its pivot, and a square root and a division on that chain took
// twice as long as the division alone (the Panda's TRAC-IK protocol, docs/benchmarks.md, "The
// factor without square roots"). Column j's unscaled entries W(i, j) = L(i, j) D(j, j) are kept in
// the upper triangle (at (j, i)), which no solve reads.
template <class T, class Size>
IKWB_HD bool ldlt_in_place(T* L, Size n) {
  for (int j = 0; j < n; ++j) {
    T d = L[j * n + j];
    for (int k = 0; k < j; ++k) d -= L[j * n + k] * L[k * n + j];
    if (!(d > T(0))) return false;
    const T inv = T(1) / d;
    L[j * n + j] = inv;
    for (int i = j + 1; i < n; ++i) {
      T w = L[i * n + j];
      for (int k = 0; k < j; ++k) w -= L[i * n + k] * L[k * n + j];
      L[j * n + i] = w;
      L[i * n + j] = w * inv;
    }
  }
  return true;
}

// The same factor column by column the other way round (right-looking): once column j is
// known, its terms are taken off the entries to its lower right at once, L(i, m) -= L(i, j) W(m, j)
// along row i, where the loop above sums each entry's terms when it reaches it. Each entry loses
// the same products in the same order (j = 0, 1, ...; no contraction into FMAs, see
// CMakeLists.txt), so the results are the same bit for bit, but the inner loop runs along two rows
// (row i of L, row j of W in the upper triangle) without a sum carried through it, and it
// vectorises. The host's factor from kRightLookingFrom dofs on (cholesky_factor).
template <class T>
IKWB_HD bool ldlt_right_looking(T* L, int n) {
  for (int j = 0; j < n; ++j) {
    const T d = L[j * n + j];
    if (!(d > T(0))) return false;
    const T inv = T(1) / d;
    L[j * n + j] = inv;
    T* __restrict__ wj = L + j * n;  // W(m, j) at (j, m)
    for (int i = j + 1; i < n; ++i) {
      const T w = L[i * n + j];
      wj[i] = w;
      L[i * n + j] = w * inv;
    }
    for (int i = j + 1; i < n; ++i) {
      T* __restrict__ row = L + i * n;
      const T l = row[j];
      for (int m = j + 1; m <= i; ++m) row[m] -= l * wj[m];
    }
  }
  return true;
}

template <class T, class Size>
IKWB_HD bool cholesky_factor_sized(T* L, Size n) {
  return ldlt_in_place(L, n);
}

// f(std::integral_constant<int, I>()) for I = B, ..., E - 1 in turn: a loop whose index the
// compiler sees as a constant in every step
template <int B, int E, class F>
IKWB_HD void static_for(F&& f) {
  if constexpr (B < E) {
    f(std::integral_constant<int, B>());
    static_for<B + 1, E>(f);
  }
}

// With the size known at compile time, the same factor with every index a constant, on a local
// copy of L: the compiler keeps the copy in registers, where through L (which may alias
// anything) it stores and loads each entry again, and GCC's unroller leaves the nested loops of
// ldlt_in_place rolled. The same operations in the same order, so the same results (the
// Cholesky tests compare the two bit for bit).
template <class T, int N>
IKWB_HD bool cholesky_factor_sized(T* L, FixedSize<N>) {
  T a[N * N];
  for (int i = 0; i < N * N; ++i) a[i] = L[i];
  bool ok = true;
  static_for<0, N>([&](auto jc) {
    constexpr int j = decltype(jc)::value;
    if (!ok) return;
    T d = a[j * N + j];
    static_for<0, j>([&](auto k) { d -= a[j * N + k] * a[k * N + j]; });
    if (!(d > T(0))) {
      ok = false;
      return;
    }
    const T inv = T(1) / d;
    a[j * N + j] = inv;
    static_for<j + 1, N>([&](auto i) {
      T w = a[i * N + j];
      static_for<0, j>([&](auto k) { w -= a[i * N + k] * a[k * N + j]; });
      a[j * N + i] = w;
      a[i * N + j] = w * inv;
    });
  });
  for (int i = 0; i < N * N; ++i) L[i] = a[i];
  return ok;
}

// Solves L D L^T x = b in place (x holds b on entry; L from cholesky_factor_sized, its diagonal
// 1 / D). Forward, each x[i] is row i of L against the x before it; then every x[i] is scaled by
// 1 / D(i, i); backward (L^T), each x[i] once known is taken off the x before it along row i of
// L: both read L by rows, and the scaling and the backward updates are independent of each other
// (they vectorise).
template <class T, class Size>
IKWB_HD void ldlt_solve_in_place(const T* L, Size n, T* x) {
  for (int i = 0; i < n; ++i) {
    T s = x[i];
    for (int k = 0; k < i; ++k) s -= L[i * n + k] * x[k];
    x[i] = s;
  }
  for (int i = 0; i < n; ++i) x[i] *= L[i * n + i];
  for (int i = n - 1; i > 0; --i) {
    const T xi = x[i];
    const T* __restrict__ row = L + i * n;
    for (int k = 0; k < i; ++k) x[k] -= row[k] * xi;
  }
}

template <class T, class Size>
IKWB_HD void cholesky_solve_sized(const T* L, Size n, T* x) {
  ldlt_solve_in_place(L, n, x);
}

// ldlt_solve_in_place with constant indices, on a local copy of x (as cholesky_factor_sized's)
template <class T, int N>
IKWB_HD void cholesky_solve_sized(const T* L, FixedSize<N>, T* x) {
  T v[N];
  for (int i = 0; i < N; ++i) v[i] = x[i];
  static_for<0, N>([&](auto ic) {
    constexpr int i = decltype(ic)::value;
    T s = v[i];
    static_for<0, i>([&](auto k) { s -= L[i * N + k] * v[k]; });
    v[i] = s;
  });
  for (int i = 0; i < N; ++i) v[i] *= L[i * N + i];
  static_for<1, N>([&](auto step) {
    constexpr int i = N - decltype(step)::value;
    const T xi = v[i];
    static_for<0, i>([&](auto k) { v[k] -= L[i * N + k] * xi; });
  });
  for (int i = 0; i < N; ++i) x[i] = v[i];
}

// Calls f(n) with n as a FixedSize for the sizes of common arms (6 to 8 dofs) on the CPU, where
// the loops over n then unroll, else with the int. Unrolled, the Cholesky factor and solve took
// 4.4 % fewer instructions in the Panda's batch protocol (1000 targets, one thread, callgrind);
// with every index a constant and the factor on a local copy (the FixedSize overloads above),
// 448 and 236 instructions a call for the Panda's 8 x 8 system, where the unrolled loops took
// 1180 and 550, and the whole protocol 11% fewer (docs/benchmarks.md, "Constant indices in the
// arm's factor"). The GPU build keeps one loop (register pressure, compile time).
template <class F>
IKWB_HD auto with_arm_size(int n, F f) -> decltype(f(n)) {
#if !defined(__CUDA_ARCH__)
  switch (n) {
    case 6:
      return f(FixedSize<6>());
    case 7:
      return f(FixedSize<7>());
    case 8:
      return f(FixedSize<8>());
    default:
      break;
  }
#endif
  return f(n);
}

// From this size on the host factors right-looking (ldlt_right_looking). Measured (a throwaway
// driver, double, -O3 -march=x86-64-v3, best of 5): right-looking takes 0.78-0.91x the loop's
// speed at 16 to 24 dofs, 0.96 at 28, 1.05 at 32, 1.1-1.26 at 34 (the humanoid's), 1.6 at 48,
// 1.8 at 64 and 3.1 at 128. The GPU keeps ldlt_in_place: one thread a row, no vector units,
// and the kernels' figures were measured with it.
constexpr int kRightLookingFrom = 32;

template <class T>
IKWB_HD bool cholesky_factor(T* L, int n) {
#if !defined(__CUDA_ARCH__)
  if (n >= kRightLookingFrom) return ldlt_right_looking(L, n);
#endif
  return with_arm_size(n, [&](auto size) { return cholesky_factor_sized(L, size); });
}

template <class T>
IKWB_HD void cholesky_solve(const T* L, int n, T* x) {
  with_arm_size(n, [&](auto size) { cholesky_solve_sized(L, size, x); });
}

// A tree's dofs, as the tree factor takes them (lm_dof_parents). The factor keeps row k of L
// packed at C + k * stride: 1 / L(k, k), then L(k, a) for k's ancestors a, nearest first. A dof's
// ancestors beyond its parent are its parent's ancestors, so eliminating k updates its
// ancestors' packed rows as contiguous runs of its own.
struct DofTree {
  const int* parent = nullptr;  // (n) each dof's parent, -1 at a root
  const int* depth = nullptr;   // (n) its ancestor count
  int stride = 0;               // 1 + the most ancestors a dof has (<= n)
};

// Each dof's parent in the kinematic tree: the previous dof of its joint, else the last dof of
// the nearest ancestor joint with dofs, -1 at a root; into parent (nv), and each dof's ancestor
// count into depth (nv). Returns the tree factor's row stride (DofTree), or 0 when a parent
// does not come before its dof (the tree factor needs that order).
template <class T>
IKWB_HD int lm_dof_parents(const ModelView<T>& m, int* parent, int* depth) {
  for (int j = 0; j < m.joint_count; ++j) {
    const int d0 = m.joint_qd_start[j], d1 = m.joint_qd_start[j + 1];
    if (d1 == d0) continue;
    int a = m.joint_ancestor[j];
    while (a >= 0 && m.joint_qd_start[a + 1] == m.joint_qd_start[a]) a = m.joint_ancestor[a];
    int p = a >= 0 ? m.joint_qd_start[a + 1] - 1 : -1;
    for (int d = d0; d < d1; ++d) {
      if (p >= d) return 0;
      parent[d] = p;
      p = d;
    }
  }
  int stride = 1;
  for (int d = 0; d < m.dof_count; ++d) {
    depth[d] = parent[d] < 0 ? 0 : depth[parent[d]] + 1;
    stride = depth[d] + 1 > stride ? depth[d] + 1 : stride;
  }
  return stride;
}

// Whether the n x n matrix A (lower triangle read) couples each dof only with its ancestors
// (parent: lm_dof_parents): the pattern of rows that each move one chain (a hand's, a foot's,
// the diagonal rows), which the tree factor keeps without fill-in. exclude (n, or null): the
// rows and columns of dofs with exclude[a] > 0 are not read (lm_factor replaces them).
template <class T>
IKWB_HD bool lm_tree_pattern(const T* A, int n, const int* parent, const T* exclude = nullptr) {
  for (int i = 0; i < n; ++i) {
    if (exclude && exclude[i] > T(0)) continue;
    int next = parent[i];  // ancestors come in decreasing order along the chain
    for (int j = i - 1; j >= 0; --j) {
      if (j == next) {
        next = parent[j];
        continue;
      }
      if (A[i * n + j] != T(0) && !(exclude && exclude[j] > T(0))) return false;
    }
  }
  return true;
}

// The lower triangle of the n x n matrix A (of tree pattern) packed as the tree factor keeps it
// (DofTree) into C (n x t.stride; the entries past a row's ancestors are left alone).
template <class T>
IKWB_HD void tree_pack(const T* A, int n, const DofTree& t, T* C) {
  for (int k = 0; k < n; ++k) {
    const T* Ak = A + k * n;
    T* Ck = C + k * t.stride;
    Ck[0] = Ak[k];
    int u = 1;
    for (int i = t.parent[k]; i >= 0; i = t.parent[i]) Ck[u++] = Ak[i];
  }
}

// In-place factor L^T L of an SPD matrix of tree pattern, packed (tree_pack) in C (Featherstone's
// LTL factorisation): from the last dof down, row k of the factor is non-zero only at k's
// ancestors, and eliminating k updates only the entries among them. The cost is the sum of the
// squared depths, not n^3 / 6, and each update a run of consecutive entries. False if not SPD.
// Each row's diagonal keeps the reciprocal of L(k, k), so the solve multiplies (as with
// cholesky_factor_sized's 1 / D).
template <class T>
IKWB_HD bool tree_factor(T* C, int n, const DofTree& t) {
  for (int k = n - 1; k >= 0; --k) {
    T* Ck = C + k * t.stride;
    if (!(Ck[0] > T(0))) return false;
    const T inv = T(1) / sqrt(Ck[0]);
    Ck[0] = inv;
    T* lk = Ck + 1;  // L(k, a) for k's ancestors a, nearest first
    const int c = t.depth[k];
    for (int u = 0; u < c; ++u) lk[u] = lk[u] * inv;
    // the u-th ancestor i: its diagonal, then its own ancestors, which are k's from u + 1 on
    int i = t.parent[k];
    for (int u = 0; u < c; ++u, i = t.parent[i]) {
      const T lki = lk[u];
      T* Ci = C + i * t.stride;
      Ci[0] -= lki * lk[u];
      for (int v = u + 1; v < c; ++v) Ci[v - u] -= lki * lk[v];
    }
  }
  return true;
}

// Solves L^T L x = b in place for K right-hand sides (xs[j] holds b_j on entry) with a factor
// of tree_factor. One walk up each dof's ancestors serves all K (the walk's loads of the next
// parent are what it waits on); each vector takes the operations of a solve of its own, in the
// same order.
template <class T, int K>
IKWB_HD void tree_solve_many(const T* C, int n, const DofTree& t, T* const (&xs)[K]) {
  for (int k = n - 1; k >= 0; --k) {
    const T* Ck = C + k * t.stride;
    T xk[K];
    for (int j = 0; j < K; ++j) {
      xk[j] = xs[j][k] * Ck[0];
      xs[j][k] = xk[j];
    }
    int u = 1;
    for (int i = t.parent[k]; i >= 0; i = t.parent[i], ++u) {
      const T l = Ck[u];
      for (int j = 0; j < K; ++j) xs[j][i] -= l * xk[j];
    }
  }
  for (int k = 0; k < n; ++k) {
    const T* Ck = C + k * t.stride;
    T s[K];
    for (int j = 0; j < K; ++j) s[j] = xs[j][k];
    int u = 1;
    for (int i = t.parent[k]; i >= 0; i = t.parent[i], ++u) {
      const T l = Ck[u];
      for (int j = 0; j < K; ++j) s[j] -= l * xs[j][i];
    }
    for (int j = 0; j < K; ++j) xs[j][k] = s[j] * Ck[0];
  }
}

// Solves L^T L x = b in place (x holds b on entry) with a factor of tree_factor.
template <class T>
IKWB_HD void tree_solve(const T* C, int n, const DofTree& t, T* x) {
  T* const xs[1] = {x};
  tree_solve_many<T, 1>(C, n, t, xs);
}

// The dense step uses the tree factor on the CPU beyond arm size, whenever the damped matrix has
// the tree pattern (inactive balance and collision rows are set aside, so a humanoid's drag
// usually has it; a centre-of-mass row couples every branch and the plain factor is used).
// Measured in docs/benchmarks.md, "The tree factor". The GPU keeps the plain loop.
IKWB_HD bool lm_tree_factor_pays(int nv) {
#if defined(__CUDA_ARCH__)
  return false;
#else
  return nv > 8;
#endif
}

// row_col values besides a column index
constexpr int kRowZero = -2;     // always zero (a disabled or null-space objective)
constexpr int kRowGeneral = -1;  // may fill any column
// a general row that lm_set_aside has set aside (inactive at the iterate, zero in J): the
// dense build skips it instead of finding each of its columns empty
constexpr int kRowAside = -3;

// Sorts the problem's rows: row_col[k] (nr) is the one column row k can fill, kRowGeneral or
// kRowZero; rows (nr) receives the general rows in order. Returns their count m. Static for a
// problem (it reads the objectives, not q); during a solve lm_set_aside marks the general rows
// it sets aside kRowAside, and back.
template <class T>
IKWB_HD int lm_classify_rows(const ProblemView<T>& pv, int* row_col, int* rows) {
  const ModelView<T>& m = pv.model;
  const int nv = m.dof_count;
  for (int oi = 0; oi < pv.objective_count; ++oi) {
    const ObjectiveParams<T>& o = pv.objectives[oi];
    int* rc = row_col + o.start;
    const bool per_dof =
        o.dim == nv && (o.type == ObjectiveType::kPosture || o.type == ObjectiveType::kJointLimits);
    for (int k = 0; k < o.dim; ++k)
      rc[k] = !o.enabled || o.null_space ? kRowZero : (per_dof ? k : kRowGeneral);
    if (!o.enabled || o.null_space || o.type != ObjectiveType::kPosture || !per_dof) continue;
    // a posture's rotation rows of ball and free joints are 3 x 3 blocks
    for (int j = 0; j < m.joint_count; ++j) {
      JointType t = JointType(m.joint_type[j]);
      if (m.joint_mimic[j] >= 0 || (t != JointType::kBall && t != JointType::kFree)) continue;
      int ds = m.joint_qd_start[j] + (t == JointType::kFree ? 3 : 0);
      for (int k = 0; k < 3; ++k) rc[ds + k] = kRowGeneral;
    }
  }
  int count = 0;
  for (int k = 0; k < pv.residual_count; ++k)
    if (row_col[k] == kRowGeneral) rows[count++] = k;
  return count;
}

// The step a problem of nv dofs and m general rows takes: kRowSpace when the general rows are
// at most half the dofs, else kDense. Measured (whole `ikwb solve` runs, instructions per solve
// under callgrind, docs/benchmarks.md "Structured LM"): with a pose target (m = 6) the two are
// even at nv = 8 (the Panda: dense 3% ahead), row space leads by 12% at nv = 12, 53% at 32, 68%
// at 48; the humanoid preset (m = 32, nv = 34) needs 14.2 M dense against 25.5 M in row space.
// A requested kDense or kRowSpace is kept, except that kRowSpace needs m (m + 1) <= nv nv (its
// m x m factor and m scratch values live in the nv x nv buffer L).
IKWB_HD LmStep lm_resolve_step(LmStep requested, int nv, int m) {
  const bool fits = long(m) * (m + 1) <= long(nv) * nv;
  if (requested == LmStep::kDense) return LmStep::kDense;
  if (requested == LmStep::kRowSpace) return fits ? LmStep::kRowSpace : LmStep::kDense;
  return fits && 2 * m <= nv ? LmStep::kRowSpace : LmStep::kDense;
}

// Elements the step needs in A and in L (row space leaves A unused).
IKWB_HD long lm_a_capacity(LmStep kind, int nv) {
  return kind == LmStep::kDense ? long(nv) * nv : 0;
}
IKWB_HD long lm_l_capacity(LmStep kind, int nv, int m) {
  return kind == LmStep::kDense ? long(nv) * nv : long(m) * (m + 1);
}

// The ints LmSystem::cols takes: the row space's columns (nv), or the dense step's DofTree (each
// dof's parent and ancestor count)
IKWB_HD constexpr int lm_cols_capacity(int nv) {
  return 2 * nv;
}

// One row's normal equations and the buffers they are kept in.
template <class T>
struct LmSystem {
  LmStep kind = LmStep::kDense;  // kDense or kRowSpace (never kAuto)
  int nv = 0, nr = 0;
  int m = 0;                          // general rows
  const T* J = nullptr;               // (nr x nv) weighted rows
  const uint8_t* dof_free = nullptr;  // (nv) or null: frozen dofs get no step
  T* A = nullptr;                     // dense: (nv x nv) J^T J (frozen dofs: identity rows),
                                      // its lower triangle (lm_build)
  T* L = nullptr;                     // dense: (nv x nv) factor of the damped A, or the
                                      // tree factor's packed rows (DofTree);
                                      // row space: (m x m) factor, then (m) scratch
  T* g = nullptr;                     // (nv) J^T r (frozen dofs: 0)
  T* diag = nullptr;                  // row space: (3 nv) diagonal rows' J^T J (frozen: 1),
                                      // diag(J^T J), inverse damped diagonal of the factor
  const int* row_col = nullptr;       // (nr) lm_classify_rows
  const int* rows = nullptr;          // (m) the general rows
  int* cols = nullptr;  // (lm_cols_capacity) row space: 1 for a dof in the factored system's
                        // columns, else 0 (nv); dense: the DofTree's arrays
  DofTree dofs;         // dense: the dofs' tree when the tree factor may be used, else stride 0
  bool tree = false;    // dense: the last lm_factor was tree_factor (lm_solve follows it)
};

// frozen dofs of the dense system: no gradient, an identity row and column in A
template <class T, class Size>
IKWB_HD void lm_freeze_dense(const LmSystem<T>& s, Size nv) {
  if (!s.dof_free) return;
  for (int a = 0; a < nv; ++a) {
    if (s.dof_free[a]) continue;
    s.g[a] = T(0);
    for (int b = 0; b < nv; ++b) s.A[a * nv + b] = s.A[b * nv + a] = T(0);
    s.A[a * nv + a] = T(1);
  }
}

// Rows k .. k + N - 1 (consecutive general rows) added to g and to the lower triangle of A:
// each column a that any of them fills adds the N rows' products in row order, so every sum is
// the one the rows make one at a time (a row's zero in column a adds a zero product), while A's
// row a is read and written once for the N rows instead of once a row.
template <class T, int N>
IKWB_HD void lm_add_rows(const LmSystem<T>& s, const T* r, int k, int nv) {
  const T* Jk = s.J + k * nv;
  for (int a = 0; a < nv; ++a) {
    T ja[N];
    bool filled = false;
    for (int i = 0; i < N; ++i) {
      ja[i] = Jk[i * nv + a];
      filled = filled || ja[i] != T(0);
    }
    if (!filled) continue;
    for (int i = 0; i < N; ++i) s.g[a] += ja[i] * r[k + i];
    T* __restrict__ Aa = s.A + a * nv;
    for (int b = 0; b <= a; ++b) {
      T t = Aa[b];
      for (int i = 0; i < N; ++i) t += ja[i] * Jk[i * nv + b];
      Aa[b] = t;
    }
  }
}

// the general rows that lm_add_rows takes together
constexpr int kLmRowBlock = 4;

// the dense part of lm_build: g = J^T r and A = J^T J over nv columns
template <class T>
IKWB_HD void lm_build_dense(const LmSystem<T>& s, const T* r, int nv) {
  for (int a = 0; a < nv; ++a) s.g[a] = T(0);
  // rows in order, runs of general rows kLmRowBlock at a time, each over its non-zero columns a
  // against the columns b <= a (the lower triangle of A, rows of it that vectorise): the same
  // sums as the plain dense product up to the sign of a zero. The upper triangle is left as it
  // is: nothing reads it (lm_factor, the factors and lm_model_decrease take the lower one)
  for (int a = 0; a < nv; ++a)
    for (int b = 0; b <= a; ++b) s.A[a * nv + b] = T(0);
  for (int k = 0; k < s.nr;) {
    const int rc = s.row_col[k];
    if (rc == kRowZero || rc == kRowAside) {
      ++k;
      continue;
    }
    if (rc >= 0) {
      const T* Jk = s.J + k * nv;
      s.A[rc * nv + rc] += Jk[rc] * Jk[rc];
      s.g[rc] += Jk[rc] * r[k];
      ++k;
      continue;
    }
    int n = 1;
    while (n < kLmRowBlock && k + n < s.nr && s.row_col[k + n] == kRowGeneral) ++n;
    if (n == kLmRowBlock)
      lm_add_rows<T, kLmRowBlock>(s, r, k, nv);
    else if (n == 3)
      lm_add_rows<T, 3>(s, r, k, nv);
    else if (n == 2)
      lm_add_rows<T, 2>(s, r, k, nv);
    else
      lm_add_rows<T, 1>(s, r, k, nv);
    k += n;
  }
  lm_freeze_dense(s, nv);
}

// The same for a fixed size: the sums are kept in local arrays, which the compiler knows no
// row of J aliases, and every column is summed (the unrolled rows cost less than the test for
// a zero); the same sums in the same order.
template <class T, int N>
IKWB_HD void lm_build_dense(const LmSystem<T>& s, const T* r, FixedSize<N>) {
  T A[N * N] = {}, g[N] = {};
  for (int k = 0; k < s.nr; ++k) {
    const int rc = s.row_col[k];
    if (rc == kRowZero || rc == kRowAside) continue;
    const T* Jk = s.J + k * N;
    if (rc >= 0) {
      A[rc * N + rc] += Jk[rc] * Jk[rc];
      g[rc] += Jk[rc] * r[k];
      continue;
    }
    T jk[N];
    for (int a = 0; a < N; ++a) jk[a] = Jk[a];
    const T rk = r[k];
    for (int a = 0; a < N; ++a) {
      g[a] += jk[a] * rk;
      for (int b = 0; b < N; ++b) A[a * N + b] += jk[a] * jk[b];
    }
  }
  for (int a = 0; a < N * N; ++a) s.A[a] = A[a];
  for (int a = 0; a < N; ++a) s.g[a] = g[a];
  lm_freeze_dense(s, FixedSize<N>());
}

// g = J^T r and (dense) A = J^T J, (row space) the diagonals, at the current J and r.
template <class T>
IKWB_HD void lm_build(const LmSystem<T>& s, const T* r) {
  if (s.kind == LmStep::kDense) {
    with_arm_size(s.nv, [&](auto nv) { lm_build_dense(s, r, nv); });
    return;
  }
  const int nv = s.nv;
  for (int a = 0; a < nv; ++a) s.g[a] = T(0);
  T* sd = s.diag;       // diagonal rows' J^T J
  T* ad = s.diag + nv;  // diag(J^T J)
  for (int a = 0; a < nv; ++a) sd[a] = ad[a] = T(0);
  for (int k = 0; k < s.nr; ++k) {
    const int rc = s.row_col[k];
    if (rc < 0) continue;
    const T j = s.J[k * nv + rc];
    sd[rc] += j * j;
    s.g[rc] += j * r[k];
  }
  for (int i = 0; i < s.m; ++i) {
    const int k = s.rows[i];
    const T* Jk = s.J + k * nv;
    const T rk = r[k];
    for (int a = 0; a < nv; ++a) {
      s.g[a] += Jk[a] * rk;
      ad[a] += Jk[a] * Jk[a];
    }
  }
  for (int a = 0; a < nv; ++a) {
    ad[a] += sd[a];
    if (s.dof_free && !s.dof_free[a]) {
      s.g[a] = T(0);
      sd[a] = ad[a] = T(1);
    }
  }
}

// the damping of dof a: lambda, times diag(A) with Marquardt scaling
template <class T>
IKWB_HD T lm_damping(T lambda, bool marquardt, T a_diag) {
  return lambda * (marquardt ? (a_diag > T(1e-9) ? a_diag : T(1e-9)) : T(1));
}

// the damping lm_factor adds to dof a's diagonal: lm_damping of diag(A)[a]
template <class T>
IKWB_HD T lm_dof_damping(const LmSystem<T>& s, T lambda, bool marquardt, int a) {
  const T a_diag = s.kind == LmStep::kDense ? s.A[a * s.nv + a] : s.diag[s.nv + a];
  return lm_damping(lambda, marquardt, a_diag);
}

// lm_factor's dense step with the tree factor: A + lambda D packed (tree_pack), excluded dofs'
// rows and columns those of the identity
template <class T>
IKWB_HD bool lm_factor_tree(LmSystem<T>& s, T lambda, bool marquardt, const T* exclude) {
  const int nv = s.nv;
  const DofTree& t = s.dofs;
  tree_pack(s.A, nv, t, s.L);
  for (int a = 0; a < nv; ++a) s.L[a * t.stride] += lm_dof_damping(s, lambda, marquardt, a);
  if (exclude) {
    for (int k = 0; k < nv; ++k) {
      T* Ck = s.L + k * t.stride;
      const bool out = exclude[k] > T(0);
      if (out) Ck[0] = T(1);
      int u = 1;
      for (int i = t.parent[k]; i >= 0; i = t.parent[i], ++u)
        if (out || exclude[i] > T(0)) Ck[u] = T(0);
    }
  }
  return tree_factor(s.L, nv, t);
}

// Factors A + lambda D. exclude (nv, or null): dofs with exclude[a] > 0 are left out of the
// step (rows and columns of the damped matrix replaced by the identity's). False when the
// matrix is not positive definite (non-finite rows).
template <class T>
IKWB_HD bool lm_factor(LmSystem<T>& s, T lambda, bool marquardt, const T* exclude) {
  const int nv = s.nv;
  if (s.kind == LmStep::kDense) {
    s.tree = s.dofs.stride > 0 && lm_tree_pattern(s.A, nv, s.dofs.parent, exclude);
    if (s.tree) return lm_factor_tree(s, lambda, marquardt, exclude);
    // (the factor reads the lower triangle: A's upper one comes along unread, a plain copy)
    for (int a = 0; a < nv * nv; ++a) s.L[a] = s.A[a];
    for (int a = 0; a < nv; ++a) s.L[a * nv + a] += lm_dof_damping(s, lambda, marquardt, a);
    if (exclude) {
      for (int a = 0; a < nv; ++a) {
        if (!(exclude[a] > T(0))) continue;
        for (int b = 0; b < nv; ++b) s.L[a * nv + b] = s.L[b * nv + a] = T(0);
        s.L[a * nv + a] = T(1);
      }
    }
    return cholesky_factor(s.L, nv);
  }
  const T* sd = s.diag;
  T* minv = s.diag + 2 * nv;
  for (int a = 0; a < nv; ++a) {
    const bool frozen = s.dof_free && !s.dof_free[a];
    const bool out = exclude && exclude[a] > T(0);
    // an excluded dof's damped diagonal is 1, as in the dense matrix
    const T d = out ? T(1) : sd[a] + lm_dof_damping(s, lambda, marquardt, a);
    if (!(d > T(0))) return false;
    minv[a] = T(1) / d;
    s.cols[a] = frozen || out ? 0 : 1;
  }
  // S = I + G M^-1 G^T over the included columns (lower triangle)
  const int m = s.m;
  for (int i = 0; i < m; ++i) {
    const T* Ji = s.J + s.rows[i] * nv;
    for (int j = 0; j <= i; ++j) {
      const T* Jj = s.J + s.rows[j] * nv;
      T t = T(0);
      for (int a = 0; a < nv; ++a)
        if (s.cols[a]) t += Ji[a] * minv[a] * Jj[a];
      s.L[i * m + j] = (i == j ? T(1) : T(0)) + t;
    }
  }
  return cholesky_factor(s.L, m);
}

// Solves the factored system in place (x: the right-hand side on entry, nv).
template <class T>
IKWB_HD void lm_solve(const LmSystem<T>& s, T* x) {
  const int nv = s.nv;
  if (s.kind == LmStep::kDense) {
    if (s.tree)
      tree_solve(s.L, nv, s.dofs, x);
    else
      cholesky_solve(s.L, nv, x);
    return;
  }
  const int m = s.m;
  const T* minv = s.diag + 2 * nv;
  T* z = s.L + m * m;
  for (int a = 0; a < nv; ++a) x[a] *= minv[a];
  for (int i = 0; i < m; ++i) {
    const T* Ji = s.J + s.rows[i] * nv;
    T t = T(0);
    for (int a = 0; a < nv; ++a)
      if (s.cols[a]) t += Ji[a] * x[a];
    z[i] = t;
  }
  cholesky_solve(s.L, m, z);
  for (int i = 0; i < m; ++i) {
    const T* Ji = s.J + s.rows[i] * nv;
    const T zi = z[i];
    for (int a = 0; a < nv; ++a)
      if (s.cols[a]) x[a] -= minv[a] * Ji[a] * zi;
  }
}

// lm_solve for two right-hand sides: with the tree factor in one walk (tree_solve_many), the
// same results as two lm_solve calls
template <class T>
IKWB_HD void lm_solve_pair(const LmSystem<T>& s, T* x, T* y) {
  if (s.kind == LmStep::kDense && s.tree) {
    T* const xs[2] = {x, y};
    tree_solve_many<T, 2>(s.L, s.nv, s.dofs, xs);
    return;
  }
  lm_solve(s, x);
  lm_solve(s, y);
}

// x -= delta times column c of A, over the dofs of the factored system (lm_factor's exclude
// leaves c out): with dof c's step fixed at delta, the right-hand side of the others' step
template <class T>
IKWB_HD void lm_take_fixed(const LmSystem<T>& s, int c, T delta, T* x) {
  const int nv = s.nv;
  if (s.kind == LmStep::kDense) {
    // the lower triangle (lm_build); frozen dofs have zeros there
    for (int a = 0; a < nv; ++a)
      if (a != c) x[a] -= (a > c ? s.A[a * nv + c] : s.A[c * nv + a]) * delta;
    return;
  }
  // the diagonal rows have no entry off the diagonal: only the general rows couple c
  for (int i = 0; i < s.m; ++i) {
    const T* Ji = s.J + s.rows[i] * nv;
    const T t = Ji[c] * delta;
    if (t == T(0)) continue;
    for (int a = 0; a < nv; ++a)
      if (s.cols[a]) x[a] -= Ji[a] * t;
  }
}

// The decrease of the quadratic model for the step dq: -dq . (g + A dq / 2).
template <class T>
IKWB_HD T lm_model_decrease(const LmSystem<T>& s, const T* dq) {
  const int nv = s.nv;
  T pred = T(0);
  if (s.kind == LmStep::kDense) {
    with_arm_size(nv, [&](auto n) {
      if constexpr (std::is_same<decltype(n), int>::value) {
        // lm_build_dense forms the lower triangle: each off-diagonal product counts twice
        for (int a = 0; a < n; ++a) {
          T t = T(0);
          for (int b = 0; b < a; ++b) t += s.A[a * n + b] * dq[b];
          pred -= dq[a] * (s.g[a] + t + T(0.5) * s.A[a * n + a] * dq[a]);
        }
      } else {
        // an arm's unrolled build forms the whole matrix, whose rows unroll
        for (int a = 0; a < n; ++a) {
          T t = T(0);
          for (int b = 0; b < n; ++b) t += s.A[a * n + b] * dq[b];
          pred -= dq[a] * (s.g[a] + T(0.5) * t);
        }
      }
    });
    return pred;
  }
  // dq^T A dq = sum of the diagonal rows' squares plus |G dq|^2
  T quad = T(0);
  for (int a = 0; a < nv; ++a) {
    pred -= dq[a] * s.g[a];
    quad += s.diag[a] * dq[a] * dq[a];
  }
  for (int i = 0; i < s.m; ++i) {
    const T* Ji = s.J + s.rows[i] * nv;
    T t = T(0);
    for (int a = 0; a < nv; ++a)
      if (!s.dof_free || s.dof_free[a]) t += Ji[a] * dq[a];
    quad += t * t;
  }
  return pred - T(0.5) * quad;
}

}  // namespace ikwb
