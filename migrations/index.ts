import { Foundation1732200000000 } from './1732200000000-foundation.js';

/** Every migration, in order. TypeORM runs them at start-up and through `npm run migration:run`. */
export const MIGRATIONS = [Foundation1732200000000];
