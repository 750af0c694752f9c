import { describe, expect, it } from '@jest/globals';
import { standingOf } from './endpoint-standing.js';

describe('standingOf', () => {
  it('never reads healthy while the circuit is open, even when the probe passed', () => {
    expect(standingOf('active', 'healthy', 'open')).toEqual({ health: 'unhealthy', availability: 'unavailable', probeHealth: 'healthy' });
  });

  it('reads degraded while half open or unprobed, healthy only with a passing probe and a closed circuit', () => {
    expect(standingOf('active', 'healthy', 'half_open')).toEqual({ health: 'unknown', availability: 'degraded', probeHealth: 'healthy' });
    expect(standingOf('active', 'unknown', 'closed')).toEqual({ health: 'unknown', availability: 'degraded', probeHealth: 'unknown' });
    expect(standingOf('active', 'healthy', 'closed')).toEqual({ health: 'healthy', availability: 'healthy', probeHealth: 'healthy' });
  });

  it('reads unavailable for a failed probe and for a disabled endpoint', () => {
    expect(standingOf('active', 'unhealthy', 'closed')).toMatchObject({ health: 'unhealthy', availability: 'unavailable' });
    expect(standingOf('disabled', 'healthy', 'closed')).toMatchObject({ health: 'healthy', availability: 'unavailable' });
  });
});
