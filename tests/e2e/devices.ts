// The devices issue 29's users tried the page on (a 390 × 844 touch phone and the desktop) and its two
// languages, and the options to open the page as one of them; shared by the flows that run on both.
import { RENDERED, type OpenOptions } from './page-fixture'

export const DEVICES = {
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
  desktop: { viewport: { width: 1300, height: 900 }, isMobile: false, hasTouch: false },
} as const
/**
 * A flow that must work on both devices and in both languages runs twice, not four times: on the phone in Chinese (the
 * course's learners) and on the desktop in English. Each device and each language is met once; what depends on the
 * two together (text that wraps or overflows, sizes, the tab bar) is walked over all of device × language, every view,
 * in tests/e2e/every-view.test.ts, and every message exists in both languages (tests/unit/web-i18n.test.ts).
 */
export const CASES = [
  { device: 'phone', lang: 'zh' },
  { device: 'desktop', lang: 'en' },
] as const

/** usePages().open's options for the page as seen on `device`, ready once it has rendered. */
export function onDevice(device: keyof typeof DEVICES): OpenOptions {
  return { ...DEVICES[device], ready: RENDERED }
}
