/**
 * What a TXT lookup saw: the records (each one's strings joined), none at that name, or no
 * usable answer (timeout, SERVFAIL, refused): the last must not count as a missing proof.
 */
export type TxtLookup = { kind: 'records'; records: string[] } | { kind: 'absent' } | { kind: 'unavailable'; reason: string };

/** The DNS port of domain verification: TXT records at one name. */
export abstract class TxtResolver {
  abstract lookupTxt(name: string): Promise<TxtLookup>;
}
