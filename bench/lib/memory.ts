import { readFileSync } from 'node:fs';

/** A field of /proc/<pid>/status in MiB (Linux); undefined once the process is gone. */
function readStatusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Samples a process's resident set size (VmRSS) while it runs: the peak over the whole run and over
 * windows (one per measured route). The kernel's own high-water mark (VmHWM) is kept beside it, as
 * it also catches spikes between samples.
 */
export class RssMonitor {
  private peak = 0;
  private highWater = 0;
  private readonly windows = new Set<{ peak: number }>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pid: number,
    intervalMs = 250,
  ) {
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
    this.sample();
  }

  private sample(): void {
    const rss = readStatusMb(this.pid, 'VmRSS');
    if (rss !== undefined) {
      this.peak = Math.max(this.peak, rss);
      for (const w of this.windows) w.peak = Math.max(w.peak, rss);
    }
    const hwm = readStatusMb(this.pid, 'VmHWM');
    if (hwm !== undefined) this.highWater = Math.max(this.highWater, hwm);
  }

  /** RSS now, in MiB. */
  current(): number | undefined {
    return readStatusMb(this.pid, 'VmRSS');
  }

  /** Starts a window; the function it answers ends it and answers the peak RSS seen within it. */
  window(): () => number {
    const w = { peak: 0 };
    this.windows.add(w);
    this.sample();
    return () => {
      this.sample();
      this.windows.delete(w);
      return w.peak;
    };
  }

  /** Peak sampled RSS and the kernel's high-water mark, in MiB. */
  peakMb(): { sampled: number; highWater: number } {
    this.sample();
    return { sampled: this.peak, highWater: this.highWater };
  }

  stop(): void {
    this.sample();
    clearInterval(this.timer);
  }
}
