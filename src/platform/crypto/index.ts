export { SealedBox } from './sealed-box.js';
