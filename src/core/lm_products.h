// Every matrix product of the language model (src/core/lm*.cpp), forward and backward, behind one small
// interface: the linear layers (c_attn, c_proj, c_fc, the MLP's c_proj), the unembedding (lm_head or wte) and
// the products of attention's backward pass. Attention's forward products run inside the attention kernels
// (kernels::attention_weights). All three are kernels::gemm (the engine's register tile, packed operands, -O3):
// every cell sums its k terms in order onto its start, so a row's bits never depend on how many rows a call has.
// All row-major; a view's stride is its row pitch in floats.
#pragma once

namespace ap::lm {

struct In {
  const float* p;
  int rows, cols;
  long stride;
};
struct Out {
  float* p;
  int rows, cols;
  long stride;
};

// The view of a dense row-major matrix (the model's Mat; any type with data(), rows() and cols()): its row pitch
// is its width. Templates, so this header stays free of Eigen (lm_products.cpp is built without it).
template <class M>
In in(const M& m) {
  return {m.data(), static_cast<int>(m.rows()), static_cast<int>(m.cols()), static_cast<long>(m.cols())};
}
template <class M>
Out out(M& m) {
  return {m.data(), static_cast<int>(m.rows()), static_cast<int>(m.cols()), static_cast<long>(m.cols())};
}

// C [m, n] (+)= A [m, k] · B [n, k]ᵀ        (a Linear's forward with B its weight [out, in]; the scores)
void mm_nt(Out C, In A, In B, bool accumulate);
// C [m, n] (+)= A [m, k] · B [k, n]         (a Linear's input gradient: dX = dY · W)
void mm_nn(Out C, In A, In B, bool accumulate);
// C [m, n] (+)= A [k, m]ᵀ · B [k, n]        (a Linear's weight gradient: dW += dYᵀ · X)
void mm_tn(Out C, In A, In B, bool accumulate);

}  // namespace ap::lm
