// Types of scripts/poem-form.mjs (the one definition of the five-character form), for the page's TypeScript
// (web/train/poems.ts) and the tests.
export const LINE_CHARS: number
export const LINE_COUNTS: number[]
export const UNKNOWN: string
export function keepsForm(text: string): boolean
export function poemOf(written: string): string | null
export function poemStarts(ids: ArrayLike<number>, count?: number): number[]
export const POEMS_TARGET: Readonly<{ valLoss: number; form: number; samples: number; temperature: number }>
export function formShare(written: string[]): { kept: number; total: number; share: number }
