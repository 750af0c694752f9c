export { HttpDrain } from './http-drain.js';
export { LifecycleModule } from './lifecycle.module.js';
export { ProcessLifecycle, type StopListener } from './process-lifecycle.js';
export {
  releaseAfterMs, ShutdownCoordinator, STOP_SIGNALS, systemClock,
  type ShutdownClock, type ShutdownOptions, type ShutdownStep, type StopContext,
} from './shutdown-coordinator.js';
