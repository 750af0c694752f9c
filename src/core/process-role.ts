/** What a process of the one image runs as: the HTTP API, or a queue worker (HTTP off). */
export type ProcessRole = 'api' | 'worker';
