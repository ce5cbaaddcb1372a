// 2-D PCA of the embedding rows, small and dependency-free (d ≤ 256): power iteration on the
// covariance, with deflation for the second component. Signs are kept pointing the same way as the
// previous frame's components, so points move smoothly instead of flipping as training goes.

export class Pca2 {
  private prev: [Float64Array, Float64Array] | null = null

  project(data: Float32Array, rows: number, cols: number): Float32Array {
    const mean = new Float64Array(cols)
    for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) mean[j] += data[i * cols + j] / rows
    const cov = new Float64Array(cols * cols)
    for (let i = 0; i < rows; i++) {
      for (let a = 0; a < cols; a++) {
        const xa = data[i * cols + a] - mean[a]
        if (xa === 0) continue
        for (let b = a; b < cols; b++) cov[a * cols + b] += xa * (data[i * cols + b] - mean[b])
      }
    }
    for (let a = 0; a < cols; a++) for (let b = 0; b < a; b++) cov[a * cols + b] = cov[b * cols + a]
    const c1 = this.top(cov, cols, this.prev?.[0])
    const l1 = rayleigh(cov, c1, cols)
    for (let a = 0; a < cols; a++) for (let b = 0; b < cols; b++) cov[a * cols + b] -= l1 * c1[a] * c1[b]
    const c2 = this.top(cov, cols, this.prev?.[1])
    if (this.prev) {
      if (dot(c1, this.prev[0]) < 0) c1.forEach((v, i) => (c1[i] = -v))
      if (dot(c2, this.prev[1]) < 0) c2.forEach((v, i) => (c2[i] = -v))
    }
    this.prev = [c1, c2]
    const out = new Float32Array(rows * 2)
    for (let i = 0; i < rows; i++) {
      let x = 0
      let y = 0
      for (let j = 0; j < cols; j++) {
        const v = data[i * cols + j] - mean[j]
        x += v * c1[j]
        y += v * c2[j]
      }
      out[2 * i] = x
      out[2 * i + 1] = y
    }
    return out
  }

  private top(m: Float64Array, n: number, start?: Float64Array): Float64Array {
    // Warm start from the last frame's component: a few iterations then suffice.
    let v = start ? Float64Array.from(start) : Float64Array.from({ length: n }, (_, i) => 1 / Math.sqrt(n) + i * 1e-3)
    for (let it = 0; it < 60; it++) {
      const w = new Float64Array(n)
      for (let a = 0; a < n; a++) {
        let s = 0
        for (let b = 0; b < n; b++) s += m[a * n + b] * v[b]
        w[a] = s
      }
      const norm = Math.hypot(...w)
      if (norm === 0) break
      for (let a = 0; a < n; a++) w[a] /= norm
      v = w
    }
    return v
  }
}

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0
  for (let i = 0; i < a.length; i++) s += a[i] * b[i]
  return s
}

function rayleigh(m: Float64Array, v: Float64Array, n: number): number {
  let s = 0
  for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) s += v[a] * m[a * n + b] * v[b]
  return s
}
