// The Train panel's PCA (web/train/pca.ts): recovers the principal axes of data with a known
// covariance and keeps their signs from one frame to the next.
import { describe, expect, it } from 'vitest'
import { Pca2 } from '../../web/train/pca'

function data(rows: number, angle: number, seed = 1) {
  // points spread 5 along (cos a, sin a, 0, 0), 1 along (-sin a, cos a, 0, 0), 0.1 elsewhere
  let s = seed
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1
  const d = new Float32Array(rows * 4)
  const u = [Math.cos(angle), Math.sin(angle)]
  for (let i = 0; i < rows; i++) {
    const a = rnd() * 5
    const b = rnd()
    d[i * 4] = a * u[0] - b * u[1] + 3
    d[i * 4 + 1] = a * u[1] + b * u[0] - 2
    d[i * 4 + 2] = rnd() * 0.1
    d[i * 4 + 3] = rnd() * 0.1
  }
  return d
}

describe('Pca2', () => {
  it('projects onto the two largest-variance directions', () => {
    const rows = 400
    const d = data(rows, 0.6)
    const p = new Pca2().project(d, rows, 4)
    let vx = 0,
      vy = 0,
      mx = 0,
      my = 0
    for (let i = 0; i < rows; i++) {
      mx += p[2 * i] / rows
      my += p[2 * i + 1] / rows
    }
    for (let i = 0; i < rows; i++) {
      vx += (p[2 * i] - mx) ** 2 / rows
      vy += (p[2 * i + 1] - my) ** 2 / rows
    }
    expect(Math.abs(mx)).toBeLessThan(1e-4)
    // uniform on [-5, 5] has variance 25/3; on [-1, 1] 1/3
    expect(vx).toBeGreaterThan((25 / 3) * 0.85)
    expect(vx).toBeLessThan((25 / 3) * 1.15)
    expect(vy).toBeGreaterThan((1 / 3) * 0.8)
    expect(vy).toBeLessThan((1 / 3) * 1.2)
    // the first coordinate is the position along (cos .6, sin .6), up to sign
    let c0 = 0,
      c1 = 0
    for (let i = 0; i < rows; i++) {
      c0 += d[i * 4] / rows
      c1 += d[i * 4 + 1] / rows
    }
    for (const i of [0, 7, 99]) {
      const along = (d[i * 4] - c0) * Math.cos(0.6) + (d[i * 4 + 1] - c1) * Math.sin(0.6)
      expect(Math.abs(Math.abs(p[2 * i]) - Math.abs(along))).toBeLessThan(0.05)
    }
  })

  it('keeps the sign of each axis across frames', () => {
    const rows = 200
    const pca = new Pca2()
    const a = pca.project(data(rows, 0.3), rows, 4)
    const b = pca.project(data(rows, 0.32), rows, 4)
    let dot = 0
    for (let i = 0; i < rows; i++) dot += a[2 * i] * b[2 * i]
    expect(dot).toBeGreaterThan(0)
  })
})
