export * from './database.module.js';
export * from './transactions.js';
export * from './prepared-reads.js';
export * from './sql-params.js';
export * from './composed-statement.js';
