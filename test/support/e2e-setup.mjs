import { setup } from './e2e-templates.mjs';

export default setup;
