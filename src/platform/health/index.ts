export { fromDependency, isOutageError, mayBeOutage, outages, OUTAGE_RETRY_AFTER_S, type Dependency, type DependencyOutages } from './outages.js';
