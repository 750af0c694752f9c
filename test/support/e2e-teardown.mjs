import { teardown } from './e2e-templates.mjs';

export default teardown;
