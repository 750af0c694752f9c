import { beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { DependencyOutages, fromDependency, isOutageError, mayBeOutage } from './outages.js';

/** The dependencies' ports, as registered by the database and Redis connections. */
const PORTS = new Set([5432, 6379]);

describe('isOutageError', () => {
  it.each([
    ['a refused connection to the database', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED', port: 5432 })],
    ['pg: server shut down under a query (57P01) inside TypeORM', { name: 'QueryFailedError', message: 'terminating connection due to administrator command', driverError: { code: '57P01' } }],
    ['pg: starting up (57P03)', { message: 'the database system is starting up', code: '57P03' }],
    ['pg: connection exception class 08', { message: 'x', code: '08006' }],
    ['pg: connection lost', new Error('Connection terminated unexpectedly')],
    ['ioredis: offline queue off', new Error("Stream isn't writeable and enableOfflineQueue options is false")],
    ['ioredis: retries spent', Object.assign(new Error('Reached the max retries per request limit (which is 1). Refer to "maxRetriesPerRequest" option for details.'), { name: 'MaxRetriesPerRequestError' })],
    ['ioredis: command timeout', new Error('Command timed out')],
    ['ioredis: closed', new Error('Connection is closed.')],
    ['a pooled read reset mid-query (no port), marked by the database client', fromDependency(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' }), 'database')],
    ['a marked reset inside a TypeORM query failure', { name: 'QueryFailedError', message: 'read ECONNRESET', driverError: fromDependency({ code: 'ECONNRESET', syscall: 'read' }, 'database') }],
    ['wrapped in a cause', new Error('outer', { cause: Object.assign(new Error('x'), { code: 'ECONNRESET', port: 6379 }) })],
  ])('%s is an outage', (_what, err) => {
    expect(isOutageError(err, PORTS)).toBe(true);
  });

  it.each([
    ['a unique violation', { name: 'QueryFailedError', message: 'duplicate key', driverError: { code: '23505' } }],
    ['a syntax error', { message: 'syntax error', code: '42601' }],
    ['a plain bug', new TypeError('x is undefined')],
    ['a provider refusing a connection', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8080'), { code: 'ECONNREFUSED', port: 8080 })],
    ['a provider resetting a read (no port, unmarked)', new Error('fetch failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' }) })],
    ['nothing', undefined],
    ['a string', 'ECONNREFUSED'],
  ])('%s is not', (_what, err) => {
    expect(isOutageError(err, PORTS)).toBe(false);
  });
});

describe('mayBeOutage', () => {
  it('asks about a bare reset that names nobody: the probes tell a dependency from a provider', () => {
    expect(mayBeOutage(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' }))).toBe(true);
  });

  it('asks about a query on a transaction whose connection was given back (the postgres-outage fault spec met it)', () => {
    const err = Object.assign(new Error('Database connection provided by a query runner was already released, cannot continue to use its querying methods anymore.'), { name: 'QueryRunnerProviderAlreadyReleasedError' });
    expect(isOutageError(err)).toBe(false);
    expect(mayBeOutage(err)).toBe(true);
  });

  it('says yes to what is an outage by its look', () => {
    expect(mayBeOutage(new Error('Connection terminated unexpectedly'))).toBe(true);
  });

  it.each([
    ['a provider that refused on its own port', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8080'), { code: 'ECONNREFUSED', port: 8080, address: '127.0.0.1' })],
    ['a constraint violation', { name: 'QueryFailedError', message: 'duplicate key', driverError: { code: '23505' } }],
    ['a plain bug', new TypeError('x is undefined')],
  ])('says no to %s', (_what, err) => {
    expect(mayBeOutage(err)).toBe(false);
  });
});

describe('DependencyOutages', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('warns once per outage however many reports, and again for the next outage', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const log = jest.spyOn(Logger.prototype, 'log');
    const outages = new DependencyOutages();
    let up = false;
    outages.register('database', async () => {
      if (!up) throw new Error('down');
    });
    const restored: string[] = [];
    outages.onRestored((d) => restored.push(d));
    const err = new Error('connect ECONNREFUSED');
    for (let i = 0; i < 50; i++) outages.report(err);
    await new Promise((r) => setImmediate(r));
    for (let i = 0; i < 50; i++) outages.report(err, 'database');
    expect(outages.isDown('database')).toBe(true);
    const warnings = () => warn.mock.calls.filter(([m]) => (m as { msg?: string }).msg === 'dependency unavailable');
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0][0]).toMatchObject({ dependency: 'database', err: 'connect ECONNREFUSED' });

    up = true;
    await waitUntil(() => !outages.isDown('database'));
    expect(restored).toEqual(['database']);
    expect(log.mock.calls.some(([m]) => (m as { msg?: string }).msg === 'dependency available again')).toBe(true);

    up = false;
    outages.report(err);
    await waitUntil(() => outages.isDown('database'));
    expect(warnings()).toHaveLength(2);
    up = true;
    await waitUntil(() => !outages.isDown('database'));
    warn.mockRestore();
    log.mockRestore();
  });

  it('finds no outage when every probe answers', async () => {
    const outages = new DependencyOutages();
    outages.register('redis', async () => 'PONG');
    outages.report(new Error('Connection is closed.'));
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(outages.isDown('redis')).toBe(false);
  });

  it('covers a failure when a probe finds a dependency down, whatever the error looks like, and no other', async () => {
    const outages = new DependencyOutages();
    let up = true;
    outages.register('database', async () => {
      if (!up) throw new Error('down');
    });
    // A client closed as the database went away names no outage: the probes decide.
    const vague = new Error('Client was closed and is not queryable');
    expect(await outages.covers(vague)).toBe(false);
    expect(await outages.covers(new TypeError('x is undefined'))).toBe(false);
    up = false;
    expect(await outages.covers(vague)).toBe(true);
    expect(outages.isDown('database')).toBe(true);
    up = true;
    await waitUntil(() => !outages.isDown('database'));
  });

  it('probes for the first failure of a streak only: later ones warn nothing and probe nothing', async () => {
    const outages = new DependencyOutages();
    let probes = 0;
    outages.register('database', async () => {
      probes += 1;
    });
    const bug = new TypeError('x is undefined');
    expect(await outages.warnsFor(bug, true)).toBe(true);
    expect(probes).toBe(1);
    for (let i = 0; i < 5; i++) expect(await outages.warnsFor(bug, false)).toBe(false);
    expect(probes).toBe(1);
  });

  it('covers an error that looks like an outage at once, and reports it', async () => {
    const outages = new DependencyOutages();
    let up = false;
    outages.register('database', async () => {
      if (!up) throw new Error('down');
    });
    expect(await outages.covers(new Error('Connection terminated unexpectedly'))).toBe(true);
    await waitUntil(() => outages.isDown('database'));
    up = true;
    await waitUntil(() => !outages.isDown('database'));
  });
});

async function waitUntil(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 10));
}
