export * from './metrics.js';
export { MetricsModule } from './metrics.module.js';
export { httpMetrics, routeLabelOf } from './http-metrics.middleware.js';
// The queue board (mountQueueBoard) is imported by its file, by main.ts only: it loads Bull Board's
// Express app and UI, which nothing else needs.
