export * from './database.module.js';
export * from './transactions.js';
