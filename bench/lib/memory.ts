/**
 * The memory of a process, as Linux reports it in /proc/PID/status: resident
 * now (VmRSS) and its peak (VmHWM), which can be reset to measure one phase.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { isInterrupted, seconds, sleep } from './processes.js';

export interface Memory {
  /** Resident set size now (VmRSS), KiB. */
  rssKiB: number;
  /** The resident peak since start or since resetPeak (VmHWM), KiB. */
  peakKiB: number;
}

/** VmRSS and VmHWM of a process; null once it is gone. */
export function readMemory(pid: number): Memory | null {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const field = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssKiB: field('VmRSS'), peakKiB: field('VmHWM') };
}

/** Sets VmHWM back to the current RSS (Linux: `5` into /proc/PID/clear_refs); false where not allowed. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * The memory of `pid` once its RSS stops moving (less than 1 MiB over a
 * second): after a start, the server loads the admin site in the background,
 * some 70 MiB, which a baseline taken at the first 200 would miss. Gives up
 * waiting after `timeoutSeconds`; null when the process is gone.
 */
export async function settledMemory(pid: number, timeoutSeconds = 20): Promise<Memory | null> {
  const started = performance.now();
  let previous = readMemory(pid);
  let steadySince = performance.now();
  while (previous !== null && seconds(started) < timeoutSeconds && !isInterrupted()) {
    await sleep(250);
    const now = readMemory(pid);
    if (now === null) return null;
    if (Math.abs(now.rssKiB - previous.rssKiB) >= 1024) {
      previous = now;
      steadySince = performance.now();
    } else if (seconds(steadySince) >= 1) {
      return now;
    }
  }
  return previous;
}

export function mib(kib: number): number {
  return kib / 1024;
}
