#include "core/lm_products.h"

#include "core/small_products.h"
#include "kernels/kernels.h"

namespace ap::lm {
namespace {

small::CView cv(In a) { return {a.p, a.rows, a.cols, a.stride}; }
small::MView mv(Out c) { return {c.p, c.rows, c.cols, c.stride}; }
bool dense(In a) { return a.stride == a.cols; }
bool dense(Out c) { return c.stride == c.cols; }

}  // namespace

// The attention kernels' products where the operands are contiguous and the result is overwritten
// (kernels::qkt is A·Bᵀ, kernels::weights_v is A·B, both SIMD128 in wasm and split over the threads);
// small_products.h's loops otherwise.
void mm_nt(Out C, In A, In B, bool accumulate) {
  if (!accumulate && dense(A) && dense(B) && dense(C)) {
    kernels::qkt(A.p, B.p, C.p, A.rows, B.rows, A.cols, 1.0f);
    return;
  }
  small::mm_nt(mv(C), cv(A), cv(B), accumulate);
}

void mm_nn(Out C, In A, In B, bool accumulate) {
  if (!accumulate && dense(A) && dense(B) && dense(C)) {
    kernels::weights_v(A.p, B.p, C.p, A.rows, A.cols, B.cols);
    return;
  }
  small::mm(mv(C), cv(A), cv(B), accumulate);
}

void mm_tn(Out C, In A, In B, bool accumulate) { small::mm_tn(mv(C), cv(A), cv(B), accumulate); }

}  // namespace ap::lm
