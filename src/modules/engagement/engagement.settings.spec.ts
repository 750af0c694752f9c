import { parseEngagementSettings } from './engagement.settings.js';

describe('parseEngagementSettings', () => {
  it('takes the platforms’ webhook secrets from the publishing credentials unless set apart', () => {
    expect(parseEngagementSettings({ INSTAGRAM_CLIENT_SECRET: 'ig', TWITTER_CLIENT_SECRET: 'tw' })).toMatchObject({ instagramAppSecret: 'ig', xConsumerSecret: 'tw', instagramVerifyToken: null });
    expect(parseEngagementSettings({ INSTAGRAM_CLIENT_SECRET: 'ig', INSTAGRAM_APP_SECRET: 'app', TWITTER_CLIENT_SECRET: 'tw', X_CONSUMER_SECRET: 'consumer' }))
      .toMatchObject({ instagramAppSecret: 'app', xConsumerSecret: 'consumer' });
    expect(parseEngagementSettings({})).toMatchObject({ instagramAppSecret: null, xConsumerSecret: null, pollIntervalMs: 300_000, sendLeaseMs: 120_000 });
  });

  it('polls YouTube by default, and X mentions too when asked', () => {
    expect(parseEngagementSettings({}).pollPlatforms).toEqual(['youtube']);
    expect(parseEngagementSettings({ ENGAGEMENT_POLL_PLATFORMS: 'youtube, x' }).pollPlatforms).toEqual(['youtube', 'twitter']);
    expect(() => parseEngagementSettings({ ENGAGEMENT_POLL_PLATFORMS: 'youtube,tiktok' })).toThrow(/ENGAGEMENT_POLL_PLATFORMS may list youtube and twitter/);
  });

  it('refuses a malformed interval with one line naming it', () => {
    expect(() => parseEngagementSettings({ ENGAGEMENT_POLL_INTERVAL: '5m' })).toThrow(/^ENGAGEMENT_POLL_INTERVAL must be a whole number of milliseconds/);
    expect(() => parseEngagementSettings({ ENGAGEMENT_SEND_LEASE: '10' })).toThrow(/ENGAGEMENT_SEND_LEASE/);
  });
});
