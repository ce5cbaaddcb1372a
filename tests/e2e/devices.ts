// The devices issue 29's users tried the page on (a 390 × 844 touch phone and the desktop) and its two
// languages, and the options to open the page as one of them; shared by first-visit, teachers and touch tests.
import { RENDERED, type OpenOptions } from './page-fixture'

export const DEVICES = {
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
  desktop: { viewport: { width: 1300, height: 900 }, isMobile: false, hasTouch: false },
} as const
export const CASES = (['phone', 'desktop'] as const).flatMap((device) =>
  (['en', 'zh'] as const).map((lang) => ({ device, lang })),
)

/** usePages().open's options for the page as seen on `device`, ready once it has rendered. */
export function onDevice(device: keyof typeof DEVICES): OpenOptions {
  return { ...DEVICES[device], ready: RENDERED }
}
