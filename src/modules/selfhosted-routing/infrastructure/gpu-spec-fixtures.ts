import { OutboundError } from '../../../platform/outbound/index.js';

/** A signal nobody aborts. */
export const live = (): AbortSignal => new AbortController().signal;

/** The OutboundError a backend call rejects with; fails the test when it resolves or rejects with anything else. */
export async function outboundFailure(p: Promise<unknown>): Promise<OutboundError> {
  const outcome = await p.then(
    () => ({ resolved: true as const }),
    (err: unknown) => ({ resolved: false as const, err }),
  );
  if (outcome.resolved) throw new Error('expected the call to fail');
  if (!(outcome.err instanceof OutboundError)) throw new Error(`expected an OutboundError, got ${String(outcome.err)}`);
  return outcome.err;
}
