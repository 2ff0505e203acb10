/** Reproducible randomness for fuzz tests: a failing run names its seed, FUZZ_SEED replays it. */
export function generator(seed: number) {
  let state = seed >>> 0;
  const next = (): number => {
    // mulberry32
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (max: number): number => Math.floor(next() * max);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  const bytes = (length: number): Buffer => Buffer.from(Array.from({ length }, () => int(256)));
  return { next, int, pick, bytes };
}

export type Random = ReturnType<typeof generator>;

/** The seed of this run: FUZZ_SEED, else one from the clock. */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
