export * from './realtime.types.js';
export { RealtimeModule } from './realtime.module.js';
