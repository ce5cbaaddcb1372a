#include "core/lm_products.h"

#include <memory>

#include "kernels/kernels.h"

namespace ap::lm {
namespace {

// Every product is kernels::gemm (the engine's register tile, -O3, split over the threads where the build has them)
// with the operands' strides saying which is transposed; its workspace (B packed, one block of A) lives for one call.
void product(Out C, int k, kernels::GemmOperand A, kernels::GemmOperand B, bool accumulate) {
  const auto floats = static_cast<std::size_t>(kernels::gemm_workspace_floats(C.rows, C.cols, k));
  const std::unique_ptr<float[]> ws(new float[floats]);
  kernels::gemm(C.rows, C.cols, k, A, B, C.p, C.stride, accumulate, ws.get());
}

}  // namespace

void mm_nt(Out C, In A, In B, bool accumulate) {
  product(C, A.cols, {A.p, A.stride, 1}, {B.p, 1, B.stride}, accumulate);
}

void mm_nn(Out C, In A, In B, bool accumulate) {
  product(C, A.cols, {A.p, A.stride, 1}, {B.p, B.stride, 1}, accumulate);
}

void mm_tn(Out C, In A, In B, bool accumulate) {
  product(C, A.rows, {A.p, 1, A.stride}, {B.p, B.stride, 1}, accumulate);
}

}  // namespace ap::lm
