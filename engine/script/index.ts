export { workerSpawner } from './spawn-worker.js';
