// The bad model files both file-reading views (model, generate) are given in their e2e tests, with the message each
// must show as text ("Could not open NAME: " and the reader's words): a file cut short, a header that declares
// 100 MB (refused before the rest is read), and garbage under a name that would be HTML if it were rendered as such.

/** `cut`: what the reader says of `good` cut 10 bytes short (it names the first tensor past the end). */
export function badModelFiles(good: Buffer, cut: RegExp): Array<[string, Buffer, RegExp]> {
  return [
    [
      'cut.safetensors',
      good.subarray(0, good.length - 10),
      new RegExp(`^Could not open cut\\.safetensors: ${cut.source}`),
    ],
    [
      'huge-header.safetensors',
      Buffer.from([0x00, 0xe1, 0xf5, 0x05, 0, 0, 0, 0, 0x7b, 0x7d]),
      /^Could not open huge-header\.safetensors: file: the header declares 100,000,000 bytes, over the limit of 16,777,216 \(16 MiB\); not read$/,
    ],
    [
      '<img src=x onerror=alert(1)>.safetensors',
      Buffer.from('not a file at all'),
      /^Could not open <img src=x onerror=alert\(1\)>\.safetensors: file: the header declares/,
    ],
  ]
}
