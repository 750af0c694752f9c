/**
 * Cleanup steps registered while a run builds up (server processes, databases, Redis keys, temp
 * dirs). They run last-registered first, once, on normal end, on error, on Ctrl-C and on timeout.
 */
type Step = { label: string; fn: () => Promise<void> | void };

const steps: Step[] = [];

export function onCleanup(label: string, fn: () => Promise<void> | void): () => Promise<void> {
  const step: Step = { label, fn };
  steps.push(step);
  return async () => {
    const i = steps.indexOf(step);
    if (i === -1) return;
    steps.splice(i, 1);
    await runStep(step);
  };
}

async function runStep(step: Step): Promise<void> {
  try {
    await step.fn();
  } catch (err) {
    console.error(`cleanup "${step.label}" failed: ${(err as Error).message}`);
  }
}

export async function runCleanups(): Promise<void> {
  while (steps.length > 0) await runStep(steps.pop()!);
}

/** Runs a bench command's `main`, then every cleanup; on failure says so under `name` and exits 2. */
export function runCommand(name: string, main: () => Promise<void>): void {
  main().then(
    async () => {
      await runCleanups();
    },
    async (err: unknown) => {
      console.error(`${name} failed: ${err instanceof Error ? err.message : String(err)}`);
      await runCleanups();
      process.exit(2);
    },
  );
}
